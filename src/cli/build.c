/*
 * build.c: `cairn build` and `cairn run`.
 *
 * A build emits one C file, compiles it with the host C compiler under strict
 * floating point (-ffp-contract=off -fno-fast-math: each + - * / rounds once,
 * as the program says), and writes a JSON receipt beside it: the sources,
 * the flags, the compiler's version, and every rounding the program performs.
 * Every output is written to a temporary name and renamed into place, so an
 * error never leaves a partial file behind.
 */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const cc_flags[] = {"-std=c17", "-O2", "-ffp-contract=off", "-fno-fast-math",
                                       "-fno-strict-aliasing", "-w"};
enum { NCC_FLAGS = sizeof cc_flags / sizeof cc_flags[0] };

static bool mkdir_p(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n >= sizeof buf)
        return false;
    memcpy(buf, path, n + 1);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) && errno != EEXIST)
            return false;
        *p = '/';
    }
    return !mkdir(buf, 0755) || errno == EEXIST;
}

/* "dir/sub/name.cairn" -> "name" */
static const char *path_stem(Arena *a, const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    return arena_strndup(a, base, n);
}

void build_plan_for(Arena *a, BuildPlan *b, const char *path, const char *name, const Options *o)
{
    memset(b, 0, sizeof *b);
    b->name = name ? name : path_stem(a, path);
    b->kind = "exe";
    b->dir = o && o->out_dir ? o->out_dir : arena_printf(a, "build/%s", b->name);
    b->c_path = arena_printf(a, "%s/%s.c", b->dir, b->name);
    b->exe_path = arena_printf(a, "%s/%s", b->dir, b->name);
    b->receipt = arena_printf(a, "%s/%s.receipt.json", b->dir, b->name);
    if (o && o->header) {
        b->library = true;
        b->kind = "lib";
        b->exe_path = arena_printf(a, "%s/lib%s.a", b->dir, b->name);
        b->header_path = arena_printf(a, "%s/%s.h", b->dir, b->name);
    }
}

static bool has_main(const Node *prog)
{
    for (int i = 0; i < prog->block.stmts.n; i++) {
        const Node *d = prog->block.stmts.v[i];
        if (d->kind == N_FN && d->fn.id && !strcmp(d->fn.id, "main"))
            return true;
    }
    return false;
}

static bool write_c(Unit *u, const BuildPlan *b, const char *runtime)
{
    const char *tmp = arena_printf(u->arena, "%s.tmp", b->c_path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "cairn: cannot write %s: %s\n", tmp, strerror(errno));
        return false;
    }
    const char *htmp = b->library ? arena_printf(u->arena, "%s.tmp", b->header_path) : NULL;
    FILE *h = htmp ? fopen(htmp, "w") : NULL;
    if (htmp && !h) {
        fclose(f);
        unlink(tmp);
        fprintf(stderr, "cairn: cannot write %s: %s\n", htmp, strerror(errno));
        return false;
    }
    Emit e = {.arena = u->arena, .out = f, .check = &u->check, .runtime_dir = runtime,
              .with_main = !b->test_main && !b->library, .test_main = b->test_main, .header = h,
              .lib_name = b->name};
    emit_program(&e);
    bool ok = !ferror(f);
    ok = !fclose(f) && ok;
    if (h) {
        ok = !ferror(h) && ok;
        ok = !fclose(h) && ok;
    }
    if (!ok || rename(tmp, b->c_path) || (htmp && rename(htmp, b->header_path))) {
        unlink(tmp);
        if (htmp)
            unlink(htmp);
        fprintf(stderr, "cairn: cannot write %s\n", b->c_path);
        return false;
    }
    return true;
}

/* A library: the object, alone in libNAME.a (written beside, then renamed
 * over the plan's output by the caller). */
static int archive(Unit *u, const BuildPlan *b, const char *obj)
{
    const char *atmp = arena_printf(u->arena, "%s.a.tmp", b->exe_path);
    unlink(atmp);
    char *argv[] = {"ar", "rcs", (char *)atmp, (char *)obj, NULL};
    int rc = proc_run(argv, NULL);
    if (rc == 0 && rename(atmp, obj))
        rc = 1;
    unlink(atmp);
    return rc;
}

/* How the emitted file is compiled: by cc for a host program, by cc with
 * CAIRN_EMULATE for an emulated device program, and by nvcc for the target
 * otherwise (the same file, read as CUDA C++). nvcc runs with --fmad=false
 * and its host compiler with the host's strict floating point, so + - * /
 * and sqrt give the same bits on both sides (numerics.md). */
static bool device_build(const Unit *u, const Options *o)
{
    return u->check.device_work > 0 && !(o && o->emulate);
}

static int device_argv(Unit *u, char **argv, int n)
{
    const char *t = u->target->name;              /* sm_90a */
    argv[n++] = "nvcc";
    argv[n++] = "-std=c++17";
    argv[n++] = "-O3";
    argv[n++] = "-x";
    argv[n++] = "cu";
    argv[n++] = "--fmad=false";
    argv[n++] = arena_printf(u->arena, "-gencode=arch=compute_%s,code=%s", t + 3, t);
    argv[n++] = "-Xcompiler";
    argv[n++] = "-ffp-contract=off,-fno-fast-math,-fno-strict-aliasing";
    argv[n++] = "-w";
    return n;
}

static bool compile_c(Unit *u, const BuildPlan *b, const char *runtime, const Options *o)
{
    /* A library's object is NAME.o, the name its archive lists it by (ar
     * names a member after its file); archive() turns it into the archive. */
    size_t cl = strlen(b->c_path);
    const char *tmp = b->library && cl > 2 ? arena_printf(u->arena, "%.*s.o", (int)(cl - 2), b->c_path)
                                           : arena_printf(u->arena, "%s.tmp", b->exe_path);
    char *argv[NCC_FLAGS + 20];
    int n = 0;
    bool dev = device_build(u, o);
    if (dev) {
        n = device_argv(u, argv, n);
    } else {
        argv[n++] = (char *)host_cc();
        for (int i = 0; i < NCC_FLAGS; i++)
            argv[n++] = (char *)cc_flags[i];
        if (o && o->emulate)
            argv[n++] = "-DCAIRN_EMULATE";
    }
    argv[n++] = arena_printf(u->arena, "-I%s", runtime);
    if (b->library)
        argv[n++] = "-c";
    argv[n++] = "-o";
    argv[n++] = (char *)tmp;
    argv[n++] = (char *)b->c_path;
    if (!b->library) {
        argv[n++] = "-lm";
        argv[n++] = dev ? "-Xcompiler=-pthread" : "-pthread";   /* the lane pool (runtime/cairn_pool.h) */
    }
    argv[n] = NULL;
    int rc = proc_run(argv, NULL);
    if (rc == 0 && b->library)
        rc = archive(u, b, tmp);
    if (rc != 0 || rename(tmp, b->exe_path)) {
        unlink(tmp);
        if (rc < 0 && dev)
            fprintf(stderr, "cairn: cannot run nvcc for the device target %s: is the CUDA toolkit on PATH? "
                            "(--emulate builds the program for the host)\n", u->target->name);
        else
            fprintf(stderr,
                    "cairn: internal error: the %s refused the emitted %s (status %d); "
                    "this is a bug in cairn, please report it with the program\n",
                    dev ? "CUDA compiler (nvcc)" : "C compiler", b->c_path, rc);
        return false;
    }
    return true;
}

/* File names can hold any byte but NUL: the writer diagnostics use keeps
 * the receipt valid JSON whatever they hold (src/diag.c). */
static void json_str(FILE *f, const char *s) { json_write_string(f, s); }

static bool write_receipt(Unit *u, const BuildPlan *b, const Options *o)
{
    const char *tmp = arena_printf(u->arena, "%s.tmp", b->receipt);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return false;
    fprintf(f, "{\n  \"cairn\": \"0.1.0\",\n  \"name\": ");
    json_str(f, b->name);
    fprintf(f, ",\n  \"kind\": ");
    json_str(f, b->kind);
    fprintf(f, ",\n  \"sources\": [{\"path\": ");
    json_str(f, u->src.name);
    fprintf(f, ", \"bytes\": %zu}],\n  \"output\": ", u->src.len);
    json_str(f, b->exe_path);
    fprintf(f, ",\n  \"emitted_c\": ");
    json_str(f, b->c_path);
    fprintf(f, ",\n  \"compilers\": {\"cc\": {\"command\": ");
    json_str(f, host_cc());
    fprintf(f, ", \"version\": ");
    json_str(f, proc_version(u->arena, host_cc()));
    fprintf(f, ", \"flags\": [");
    for (int i = 0; i < NCC_FLAGS; i++)
        fprintf(f, "%s\"%s\"", i ? ", " : "", cc_flags[i]);
    fprintf(f, "]}},\n  \"device_target\": ");
    if (u->target)
        target_write_json(f, u->target);
    else
        fputs("null", f);
    fprintf(f, ",\n  \"emulation\": ");
    if (o && o->emulate && u->target) {
        fprintf(f, "{\"machine\": \"emulated\", \"judged_against\": ");
        json_str(f, u->target->name);
        fprintf(f, ", \"note\": \"device work ran on host threads: evidence about the host, never about a "
                   "device; nvcc did not run, so nothing only nvcc or ptxas refuses was checked\"}");
    } else {
        fputs("null", f);
    }
    fprintf(f, ",\n  \"numerics\": [");
    for (int i = 0; i < u->check.numerics.n; i++)
        fprintf(f, "%s\n    %s", i ? "," : "", (const char *)u->check.numerics.v[i]);
    fprintf(f, "%s]\n}\n", u->check.numerics.n ? "\n  " : "");
    bool ok = !ferror(f);
    ok = !fclose(f) && ok;
    if (!ok || rename(tmp, b->receipt)) {
        unlink(tmp);
        return false;
    }
    return true;
}

int build_unit(Unit *u, BuildPlan *b, const Options *o)
{
    if (!unit_check_target(u, o, b->manifest_target, b->manifest))
        return EXIT_REFUSED;
    if (!b->test_main && !b->library && !has_main(u->program)) {
        Span at = {.src = &u->src, .line = 1, .col = 1, .len = 1};
        diag_error(&u->sink, at, E_MAIN, "add `fn main() -> i32 { ... return 0; }`",
                   "%s has no fn main() -> i32, so there is nothing to run", u->src.name);
        return EXIT_REFUSED;
    }
    if (!mkdir_p(b->dir)) {
        fprintf(stderr, "cairn: cannot create %s: %s\n", b->dir, strerror(errno));
        return EXIT_USAGE;
    }
    const char *runtime = cairn_runtime_dir(u->arena);
    if (!write_c(u, b, runtime))
        return EXIT_USAGE;
    if (o && o->emit_c) {
        FILE *f = fopen(b->c_path, "r");
        char buf[8192];
        size_t n;
        while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
            fwrite(buf, 1, n, stdout);
        if (f)
            fclose(f);
    }
    if (!compile_c(u, b, runtime, o))
        return EXIT_USAGE;
    if (!write_receipt(u, b, o)) {
        fprintf(stderr, "cairn: cannot write %s\n", b->receipt);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

static const char build_help[] =
    "usage: cairn build [FILE.cairn | MANIFEST.toml | DIR] [--out DIR] [--emit-c]\n"
    "                   [--emulate] [--device-target T] [--header]\n"
    "\n"
    "Builds a program. With a .cairn file, the program is that file and its name\n"
    "is the file's stem; with a manifest (cairn.toml, or a DIR holding one), the\n"
    "[build] table says name, kind (\"exe\"), source and device_target.\n"
    "Writes under build/NAME/ (or --out DIR): NAME.c (the emitted C), NAME (the\n"
    "executable) and NAME.receipt.json (sources, flags, compiler versions, and\n"
    "`numerics`: every rounding the program performs).\n"
    "\n"
    "  --emit-c          also print the emitted C on standard output\n"
    "  --out DIR         write the outputs into DIR\n"
    "  --device-target T the device target (sm_80, sm_90a, sm_120f, ...); beats the\n"
    "                    manifest's device_target. The receipt records it under\n"
    "                    device_target: how it was resolved, its features, limits\n"
    "  --emulate         build device work for host threads (CAIRN_EMULATE), judged\n"
    "                    against the device target; nvcc does not run\n"
    "  --header          a library: NAME.h (cf_ and cq_ entries, E-ENQUEUE list)\n"
    "                    and libNAME.a, in place of an executable\n";

/* A manifest build: reads [build] and builds its source. */
static bool manifest_plan(Arena *a, const char *path, const char **src, const char **name,
                          const char **target, bool *lib)
{
    Toml t;
    char err[512];
    if (!toml_read(a, path, &t, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return false;
    }
    const char *kind = toml_get(&t, "build", "kind");
    *name = toml_get(&t, "build", "name");
    *src = toml_get(&t, "build", "source");
    *target = toml_get(&t, "build", "device_target");
    if (kind && strcmp(kind, "exe") && strcmp(kind, "lib")) {
        fprintf(stderr, "%s: [build] kind = \"%s\": a build is an \"exe\" or a \"lib\" (a library with a C "
                        "header)\n", path, kind);
        return false;
    }
    *lib = kind && !strcmp(kind, "lib");
    if (!*src) {
        fprintf(stderr, "%s: [build] needs source = \"FILE.cairn\"\n", path);
        return false;
    }
    /* The source is relative to the manifest. */
    const char *slash = strrchr(path, '/');
    if (slash && (*src)[0] != '/')
        *src = arena_printf(a, "%.*s/%s", (int)(slash - path), path, *src);
    if (!*name) {
        const char *base = strrchr(*src, '/');
        base = base ? base + 1 : *src;
        const char *dot = strrchr(base, '.');
        *name = arena_strndup(a, base, dot ? (size_t)(dot - base) : strlen(base));
    }
    return true;
}

static bool is_dir(const char *p)
{
    struct stat st;
    return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* Resolves the path of build/run to a source and a plan. */
static bool resolve_program(Arena *a, const Options *o, const char **src, BuildPlan *b)
{
    const char *path = o->path ? o->path : ".";
    const char *name = NULL, *target = NULL;
    bool lib = false;
    if (is_dir(path))
        path = arena_printf(a, "%s/cairn.toml", path);
    if (ends_with(path, ".toml")) {
        if (!manifest_plan(a, path, src, &name, &target, &lib))
            return false;
    } else
        *src = path;
    Options lo = *o;
    lo.header = o->header || lib;
    build_plan_for(a, b, *src, name, &lo);
    if (target) {
        b->manifest = path;
        b->manifest_target = target;
    }
    return true;
}

int cmd_build(int argc, char **argv)
{
    Options o;
    if (!opts_parse(&o, "build", argc, argv, "json emulate device-target out emit-c header"))
        return EXIT_USAGE;
    if (o.help) {
        fputs(build_help, stdout);
        return EXIT_OK;
    }
    Arena *a = arena_new();
    const char *src;
    BuildPlan b;
    int rc = EXIT_USAGE;
    if (resolve_program(a, &o, &src, &b)) {
        Unit u;
        if (unit_load(&u, src, &o)) {
            rc = build_unit(&u, &b, &o);
            if (rc == EXIT_OK && !o.emit_c)
                fprintf(stderr, "cairn: built %s%s%s (receipt %s)\n", b.exe_path, b.library ? " and " : "",
                        b.library ? b.header_path : "", b.receipt);
        }
        unit_free(&u);
    }
    arena_free(a);
    return rc;
}

static const char run_help[] =
    "usage: cairn run [FILE.cairn | MANIFEST.toml | DIR] [--out DIR] [-- ARGS...]\n"
    "\n"
    "Builds the program as `cairn build` does, then runs its fn main() -> i32\n"
    "with ARGS. Exits with main's result; a program killed by a signal makes\n"
    "cairn run exit 128 + the signal (a failed guard aborts: 134).\n"
    "Exits 1 when the program is refused, 2 on a usage or build error.\n"
    "\n"
    "  --device-target T the device target, as for cairn build\n"
    "  --emulate         device work on host threads, judged against the target;\n"
    "                    a note on standard error says the run was emulated\n";

int cmd_run(int argc, char **argv)
{
    Options o;
    if (!opts_parse(&o, "run", argc, argv, "json emulate device-target out"))
        return EXIT_USAGE;
    if (o.help) {
        fputs(run_help, stdout);
        return EXIT_OK;
    }
    Arena *a = arena_new();
    const char *src;
    BuildPlan b;
    int rc = EXIT_USAGE;
    bool u_emulated = false;
    const char *u_target = "";
    if (resolve_program(a, &o, &src, &b)) {
        Unit u;
        if (unit_load(&u, src, &o)) {
            rc = build_unit(&u, &b, &o);
            u_emulated = u.target != NULL;
            u_target = u.target ? arena_strdup(a, u.target->name) : "";
        }
        unit_free(&u);
    }
    if (rc == EXIT_OK) {
        char **argv2 = arena_alloc(a, (size_t)(o.nprog_args + 2) * sizeof *argv2);
        argv2[0] = (char *)b.exe_path;
        if (!strchr(b.exe_path, '/'))
            argv2[0] = arena_printf(a, "./%s", b.exe_path);
        for (int i = 0; i < o.nprog_args; i++)
            argv2[i + 1] = o.prog_args[i];
        fflush(stdout);
        if (o.emulate && u_emulated)
            fprintf(stderr, "cairn run: emulated: device work runs on host threads, judged against %s; "
                            "nothing here is evidence about a device\n", u_target);
        rc = proc_run(argv2, NULL);
        if (rc < 0) {
            fprintf(stderr, "cairn run: cannot start %s\n", b.exe_path);
            rc = EXIT_USAGE;
        }
    }
    arena_free(a);
    return rc;
}
