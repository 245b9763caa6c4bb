/*
 * build.c: `cairn build` and `cairn run`.
 *
 * A build emits one C file, compiles it with the host C compiler under strict
 * floating point (-ffp-contract=off -fno-fast-math: each + - * / rounds once,
 * as the program says), and writes a JSON receipt beside it: the sources,
 * the flags, the compiler's version, and every rounding the program performs.
 * Every output is written in the build's own staging directory and renamed
 * into place when the whole build has succeeded (stage.c), so an error, an
 * interrupt or another build of the same program at the same time never
 * leaves a partial file, or a header without its archive, under a final name.
 */
#include "cli.h"

#include <errno.h>
#include <signal.h>
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
        b->so_path = arena_printf(a, "%s/%s.so", b->dir, b->name);
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

/* Where a build writes, inside its stage (stage.c): each output under its
 * final name, renamed into place when the whole build has succeeded. */
typedef struct {
    const Stage *stage;
    const char *c, *h, *obj, *out, *so, *receipt;
} Staged;

static void staged_paths(Arena *a, const BuildPlan *b, const Stage *s, Staged *p)
{
    p->stage = s;
    p->c = stage_path(a, s, b->c_path);
    p->h = b->library ? stage_path(a, s, b->header_path) : NULL;
    /* A library's object is NAME.o, the name its archive lists it by (ar
     * names a member after its file). */
    p->obj = arena_printf(a, "%s/%s.o", s->path, b->name);
    p->out = stage_path(a, s, b->exe_path);
    p->so = b->library ? stage_path(a, s, b->so_path) : NULL;
    p->receipt = stage_path(a, s, b->receipt);
}

static bool write_c(Unit *u, const BuildPlan *b, const Staged *p, const char *runtime)
{
    FILE *f = fopen(p->c, "w");
    FILE *h = p->h && f ? fopen(p->h, "w") : NULL;
    if (!f || (p->h && !h)) {
        fprintf(stderr, "cairn: cannot write %s: %s\n", f ? p->h : p->c, strerror(errno));
        if (f)
            fclose(f);
        return false;
    }
    Emit e = {.arena = u->arena, .out = f, .check = &u->check, .runtime_dir = runtime,
              .with_main = !b->test_main && !b->library, .test_main = b->test_main, .header = h,
              .lib_name = b->name};
    bool ok = unit_emit(u, &e);   /* the analysis pass, then emit (pass.c) */
    u->exports = e.exports;
    ok = !ferror(f) && ok;
    ok = !fclose(f) && ok;
    if (h) {
        ok = !ferror(h) && ok;
        ok = !fclose(h) && ok;
    }
    if (!ok)
        fprintf(stderr, "cairn: cannot write %s (is the disk full?)\n", b->c_path);
    return ok;
}

/* Whether the host compile may target the fused multiply-add: cairn runs on
 * an x86-64 CPU that has it (every one since 2013) and the compiler is the
 * default cc or names gcc or clang (they take -mfma); CAIRN_HOST_FMA=0 says
 * no. Then the portable math's first tries take their one-rounding forms,
 * the GPU's (runtime/cairn_math_base.h): f32 log 0.7x-0.8x glibc's time
 * where the plain forms took 2.2x. Answers are the same either way (a first try
 * decides only within its bound); the executable then needs such a CPU,
 * and the receipt's flags say -mfma. On AArch64 the default target has it. */
static bool host_fma(void)
{
    const char *env = getenv("CAIRN_HOST_FMA");
    if (env && !strcmp(env, "0"))
        return false;
#if defined(__x86_64__) && defined(__GNUC__)
    const char *cc = host_cc(), *base = strrchr(cc, '/');
    base = base ? base + 1 : cc;
    if (strcmp(base, "cc") && strncmp(base, "gcc", 3) && strncmp(base, "clang", 5))
        return false;
    __builtin_cpu_init();
    return __builtin_cpu_supports("fma");
#else
    return false;
#endif
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

/* The compiler and its flags, for the emitted file or for a probe. */
/* A library's object is position-independent: it goes into the archive and
 * into the shared library too. */
static int compiler_argv(Unit *u, const Options *o, bool library, char **argv)
{
    int n = 0;
    if (device_build(u, o)) {
        const char *t = u->target->name;              /* sm_90a */
        argv[n++] = "nvcc";
        argv[n++] = "-std=c++17";
        argv[n++] = "-O3";
        argv[n++] = "-x";
        argv[n++] = "cu";
        argv[n++] = "--fmad=false";
        argv[n++] = arena_printf(u->arena, "-gencode=arch=compute_%s,code=%s", t + 3, t);
        argv[n++] = "-Xcompiler";
        argv[n++] = library ? "-ffp-contract=off,-fno-fast-math,-fno-strict-aliasing,-fPIC"
                            : "-ffp-contract=off,-fno-fast-math,-fno-strict-aliasing";
        argv[n++] = "-w";
        return n;
    }
    argv[n++] = (char *)host_cc();
    for (int i = 0; i < NCC_FLAGS; i++)
        argv[n++] = (char *)cc_flags[i];
    if (host_fma())
        argv[n++] = "-mfma";
    if (o && o->emulate)
        argv[n++] = "-DCAIRN_EMULATE";
    if (library)
        argv[n++] = "-fPIC";
    return n;
}

/* "the C compiler 'gcc' (the environment's $CC)": whom a failure is about. */
static const char *compiler_named(Unit *u, bool dev)
{
    if (dev)
        return arena_printf(u->arena, "the CUDA compiler 'nvcc' (from PATH) for the device target %s",
                            u->target->name);
    const char *env = getenv("CC");
    if (env && *env)
        return arena_printf(u->arena, "the C compiler '%s' (the environment's $CC)", env);
    return "the C compiler 'cc' (the default: $CC is not set)";
}

static const char *compiler_help(bool dev)
{
    return dev ? "put the CUDA toolkit's bin directory on PATH, or build with --emulate to run device work "
                 "on host threads"
               : "set CC to a working C17 compiler (cc, gcc or clang), or unset it to use cc";
}

/* Does the compiler, with the flags cairn gives it, compile an empty
 * program? If it does not, a refused build is the environment's fault. */
static bool compiler_works(Unit *u, const Options *o, const Staged *p)
{
    /* NAME.probe.c: no output of the build has that name */
    const char *exe = arena_printf(u->arena, "%s.probe", p->c);
    const char *src = arena_printf(u->arena, "%s.c", exe);
    FILE *f = fopen(src, "w");
    if (!f)
        return true;    /* cannot tell: the failure stays reported as cairn's */
    fputs("int main(void) { return 0; }\n", f);
    if (fclose(f))
        return true;
    char *argv[NCC_FLAGS + 20];
    int n = compiler_argv(u, o, false, argv);
    argv[n++] = "-o";
    argv[n++] = (char *)exe;
    argv[n++] = (char *)src;
    argv[n] = NULL;
    return proc_run(argv, NULL) == 0;
}

/* A compiler run that failed: says whose fault it is. On cairn's own (the
 * compiler works, and refused the emitted C), NAME.c is kept to report. */
static void compile_failed(Unit *u, const BuildPlan *b, const Options *o, const Staged *p, const ProcCall *c,
                           int rc)
{
    bool dev = device_build(u, o);
    const char *who = compiler_named(u, dev);
    if (c->forwarded)
        return;    /* interrupted: the build stops without a word */
    if (rc < 0) {
        fprintf(stderr, "cairn: cannot run %s: %s\n  help: %s\n", who, strerror(c->start_errno),
                compiler_help(dev));
    } else if (c->signal) {
        fprintf(stderr, "cairn: %s was killed by signal %d (%s) while it compiled %s: out of memory, or stopped "
                        "from outside\n", who, c->signal, proc_signal_name(c->signal), b->c_path);
    } else if (!compiler_works(u, o, p)) {
        fprintf(stderr, "cairn: %s does not work: it failed (status %d), and fails on an empty program too, so "
                        "the fault is the compiler's, not the emitted C's\n  help: %s\n",
                who, rc, compiler_help(dev));
    } else {
        stage_commit(u->arena, p->stage, b->c_path);
        fprintf(stderr,
                "cairn: internal error: %s refused the emitted %s (status %d); "
                "this is a bug in cairn, please report it with the program\n", who, b->c_path, rc);
    }
}

/* A library: the object, alone in libNAME.a. */
static bool archive(Unit *u, const BuildPlan *b, const Staged *p)
{
    char *argv[] = {"ar", "rcs", (char *)p->out, (char *)p->obj, NULL};
    ProcCall c = {.argv = argv};
    int rc = proc_call(&c);
    if (rc == 0 || c.forwarded)
        return rc == 0;
    if (rc < 0)
        fprintf(stderr, "cairn: cannot run ar, which makes the archive %s: %s\n  help: install binutils\n",
                b->exe_path, strerror(c.start_errno));
    else
        fprintf(stderr, "cairn: ar failed (status %d) making the archive %s\n", rc, b->exe_path);
    return false;
}

/* A library: the same object as NAME.so, for a caller that loads it at run
 * time (ctypes, the Python binding); not libNAME.so, which -lNAME would take
 * over the archive, leaving a C program that cannot find it when it runs. The compiler that made the object
 * links it, with what the object needs: the C library's math and threads,
 * and for a device library the CUDA runtime (nvcc links it in statically). */
static bool link_shared(Unit *u, const BuildPlan *b, const Staged *p, bool dev)
{
    char *argv[12];
    int n = 0;
    argv[n++] = dev ? "nvcc" : (char *)host_cc();
    argv[n++] = "-shared";
    argv[n++] = "-o";
    argv[n++] = (char *)p->so;
    argv[n++] = (char *)p->obj;
    argv[n++] = "-lm";
    argv[n++] = dev ? "-Xcompiler=-pthread" : "-pthread";
    argv[n] = NULL;
    ProcCall c = {.argv = argv};
    int rc = proc_call(&c);
    if (rc == 0 || c.forwarded)
        return rc == 0;
    if (rc < 0)
        fprintf(stderr, "cairn: cannot run %s, which links the shared library %s: %s\n", argv[0], b->so_path,
                strerror(c.start_errno));
    else
        fprintf(stderr, "cairn: %s failed (status %d) linking the shared library %s\n", argv[0], rc, b->so_path);
    return false;
}

static bool compile_c(Unit *u, const BuildPlan *b, const Staged *p, const char *runtime, const Options *o)
{
    char *argv[NCC_FLAGS + 20];
    int n = compiler_argv(u, o, b->library, argv);
    bool dev = device_build(u, o);
    argv[n++] = arena_printf(u->arena, "-I%s", runtime);
    if (b->library)
        argv[n++] = "-c";
    argv[n++] = "-o";
    argv[n++] = (char *)(b->library ? p->obj : p->out);
    argv[n++] = (char *)p->c;
    if (!b->library) {
        argv[n++] = "-lm";
        argv[n++] = dev ? "-Xcompiler=-pthread" : "-pthread";   /* the lane pool (runtime/cairn_pool.h) */
    }
    argv[n] = NULL;
    ProcCall c = {.argv = argv};
    int rc = proc_call(&c);
    if (rc != 0) {
        compile_failed(u, b, o, p, &c, rc);
        return false;
    }
    return !b->library || (archive(u, b, p) && link_shared(u, b, p, dev));
}

/* File names can hold any byte but NUL: the writer diagnostics use keeps
 * the receipt valid JSON whatever they hold (src/diag.c). */
static void json_str(FILE *f, const char *s) { json_write_string(f, s); }

/* The compiler that built the emitted file, as it ran: nvcc for a device
 * build (its release and every flag), else the host's cc (with
 * -DCAIRN_EMULATE for an emulated one). */
static void write_compiler(FILE *f, Unit *u, const Options *o, bool library)
{
    char *argv[NCC_FLAGS + 20];
    int n = compiler_argv(u, o, library, argv);
    bool dev = device_build(u, o);
    fprintf(f, "{\"%s\": {\"command\": ", dev ? "nvcc" : "cc");
    json_str(f, argv[0]);
    fprintf(f, ", \"version\": ");
    json_str(f, dev && u->target->nvcc ? u->target->nvcc : proc_version(u->arena, argv[0]));
    fprintf(f, ", \"flags\": [");
    for (int i = 1; i < n; i++) {
        fputs(i > 1 ? ", " : "", f);
        json_str(f, argv[i]);
    }
    fprintf(f, "]}}");
}

/* The receipt, written at `path` in the stage. */
static bool write_receipt(Unit *u, const BuildPlan *b, const Options *o, const char *path)
{
    FILE *f = fopen(path, "w");
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
    fprintf(f, ",\n  \"compilers\": ");
    write_compiler(f, u, o, b->library);
    fprintf(f, ",\n  \"device_target\": ");
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
    fprintf(f, ",\n  \"local_storage\": [");
    for (int i = 0; i < u->check.local_storage.n; i++)
        fprintf(f, "%s\n    %s", i ? "," : "", (const char *)u->check.local_storage.v[i]);
    fprintf(f, "%s]", u->check.local_storage.n ? "\n  " : "");
    if (u->exports)
        fprintf(f, ",\n  \"exports\": %s", u->exports);
    fprintf(f, ",\n  \"numerics\": [");
    for (int i = 0; i < u->check.numerics.n; i++)
        fprintf(f, "%s\n    %s", i ? "," : "", (const char *)u->check.numerics.v[i]);
    fprintf(f, "%s]\n}\n", u->check.numerics.n ? "\n  " : "");
    bool ok = !ferror(f);
    return !fclose(f) && ok;
}

static void print_file(const char *path)
{
    FILE *f = fopen(path, "r");
    char buf[8192];
    size_t n;
    while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, stdout);
    if (f)
        fclose(f);
}

/* Every output, renamed over its final name. The executable or archive
 * goes before the header, so that a header is never newer than its archive. */
static bool commit_outputs(Unit *u, const BuildPlan *b, const Staged *p)
{
    Arena *a = u->arena;
    return stage_commit(a, p->stage, b->c_path) && stage_commit(a, p->stage, b->exe_path) &&
           (!b->library || (stage_commit(a, p->stage, b->so_path) && stage_commit(a, p->stage, b->header_path))) &&
           stage_commit(a, p->stage, b->receipt);
}

/* The build inside its stage. Between its steps it stops, quietly, when a
 * signal to end cairn is pending: the caller removes the stage. */
static int build_staged(Unit *u, BuildPlan *b, const Options *o, const Staged *p)
{
    const char *runtime = cairn_runtime_dir(u->arena);
    if (!write_c(u, b, p, runtime))
        return EXIT_USAGE;
    if (o && o->emit_c)
        print_file(p->c);
    if (proc_interrupted() || !compile_c(u, b, p, runtime, o) || proc_interrupted())
        return EXIT_USAGE;
    if (!write_receipt(u, b, o, p->receipt)) {
        fprintf(stderr, "cairn: cannot write %s\n", b->receipt);
        return EXIT_USAGE;
    }
    /* cairn run runs the executable through a second name in the stage, so
     * another build renaming its own over NAME cannot change what runs. */
    if (b->for_run) {
        const char *run = arena_printf(u->arena, "%s/run-%s", p->stage->path, b->name);
        b->run_path = link(p->out, run) == 0 ? run : NULL;
    }
    if (proc_interrupted() || !commit_outputs(u, b, p))
        return EXIT_USAGE;
    /* the process then shows the program's own name (ps, top) */
    if (b->run_path && rename(b->run_path, p->out) == 0)
        b->run_path = p->out;
    return EXIT_OK;
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
    ProcDefer d;
    proc_defer_begin(&d);
    Stage s = {0};
    int rc = EXIT_USAGE;
    if (stage_open(u->arena, &s, b->dir, b->name)) {
        Staged p;
        staged_paths(u->arena, b, &s, &p);
        rc = build_staged(u, b, o, &p);
    }
    if (rc == EXIT_OK && b->for_run) {
        /* cairn run: the stage holds what it runs, and the signals stay
         * held until the program has ended and the stage is removed */
        b->stage = s;
        b->defer = d;
        return rc;
    }
    stage_remove(&s);
    proc_defer_end(&d);      /* a pending signal ends cairn here, its temporaries gone */
    return rc;
}

static const char build_help[] =
    "usage: cairn build [FILE.cairn | MANIFEST.toml | DIR] [--out DIR] [--emit-c]\n"
    "                   [--emulate] [--device-target T] [--header]\n"
    "\n"
    "Builds a program. With a .cairn file, the program is that file and its name\n"
    "is the file's stem; with a manifest (cairn.toml, or a DIR holding one), the\n"
    "[build] table says name, kind (\"exe\" or \"lib\"), source and device_target.\n"
    "Writes under build/NAME/ (or --out DIR): NAME.c (the emitted C), NAME (the\n"
    "executable) and NAME.receipt.json (sources, flags, compiler versions, and\n"
    "`numerics`: every rounding the program performs), each renamed into place\n"
    "once the whole build has succeeded, so a failed, interrupted or concurrent\n"
    "build never leaves a partial file.\n"
    "\n"
    "  --emit-c          also print the emitted C on standard output\n"
    "  --quiet           no line saying what was built\n"
    "  --out DIR         write the outputs into DIR\n"
    "  --device-target T the device target (sm_80, sm_90a, sm_120f, ...); beats the\n"
    "                    manifest's device_target. The receipt records it under\n"
    "                    device_target: how it was resolved, its features, limits\n"
    "  --emulate         build device work for host threads (CAIRN_EMULATE), judged\n"
    "                    against the device target; nvcc does not run\n"
    "  --header          a library: NAME.h (cf_ and cq_ entries, E-ENQUEUE list)\n"
    "                    and libNAME.a, in place of an executable\n";

/* A manifest build: reads [build] and builds its source. */
static bool manifest_plan(Arena *a, const char *path, bool emulate, const char **src, const char **name,
                          const char **target, bool *lib, int *rc)
{
    Manifest m;
    if (!manifest_read(a, path, emulate, &m)) {
        *rc = m.exit_code;
        return false;
    }
    const char *kind = m.kind;
    *name = m.name;
    *src = m.source;
    *target = m.device_target;
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
static bool resolve_program(Arena *a, const Options *o, const char **src, BuildPlan *b, int *rc)
{
    const char *path = o->path ? o->path : ".";
    const char *name = NULL, *target = NULL;
    bool lib = false;
    if (is_dir(path))
        path = arena_printf(a, "%s/cairn.toml", path);
    if (ends_with(path, ".toml")) {
        if (!manifest_plan(a, path, o->emulate, src, &name, &target, &lib, rc))
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
    if (!opts_parse(&o, "build", argc, argv, "json emulate device-target out emit-c header quiet"))
        return EXIT_USAGE;
    if (o.help) {
        fputs(build_help, stdout);
        return EXIT_OK;
    }
    Arena *a = arena_new();
    const char *src;
    BuildPlan b;
    int rc = EXIT_USAGE;
    if (resolve_program(a, &o, &src, &b, &rc)) {
        Unit u;
        if (unit_load(&u, src, &o)) {
            rc = build_unit(&u, &b, &o);
            if (rc == EXIT_OK && !o.emit_c && !o.quiet)
                fprintf(stderr, "cairn: built %s%s%s%s%s (receipt %s)\n", b.exe_path, b.library ? ", " : "",
                        b.library ? b.so_path : "", b.library ? " and " : "", b.library ? b.header_path : "", b.receipt);
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
    "cairn run exit 128 + the signal, which it names (a failed guard aborts: 134).\n"
    "SIGINT, SIGTERM and SIGHUP sent to cairn run are passed on to the program,\n"
    "which flushes what it printed and dies of it (130, 143, 129); cairn waits.\n"
    "Exits 1 when the program is refused, 2 on a usage or build error.\n"
    "\n"
    "  --device-target T the device target, as for cairn build\n"
    "  --emulate         device work on host threads, judged against the target;\n"
    "                    a note on standard error says the run was emulated\n";

/* Runs what cmd_run built: main's status, or 128 + the signal that ended
 * it, named on standard error. */
static int run_program(Arena *a, const BuildPlan *b, const Options *o)
{
    char **argv = arena_alloc(a, (size_t)(o->nprog_args + 2) * sizeof *argv);
    argv[0] = strchr(b->exe_path, '/') ? (char *)b->exe_path : arena_printf(a, "./%s", b->exe_path);
    for (int i = 0; i < o->nprog_args; i++)
        argv[i + 1] = o->prog_args[i];
    argv[o->nprog_args + 1] = NULL;
    ProcCall c = {.argv = argv, .file = b->run_path ? b->run_path : argv[0]};
    fflush(stdout);
    int rc = proc_call(&c);
    if (rc < 0) {
        fprintf(stderr, "cairn run: cannot start %s: %s\n", b->exe_path, strerror(c.start_errno));
        return EXIT_USAGE;
    }
    if (c.signal)
        fprintf(stderr, "cairn run: %s was killed by signal %d (%s)%s\n", b->exe_path, c.signal,
                proc_signal_name(c.signal), c.signal == SIGABRT ? ": a failed guard, or an abort" : "");
    /* A signal passed on to the program was answered by it: cairn exits
     * with the program's status, not of the signal itself. */
    if (c.forwarded)
        proc_take_pending();
    return rc;
}

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
    BuildPlan b = {0};
    int rc = EXIT_USAGE;
    bool u_emulated = false;
    const char *u_target = "";
    if (resolve_program(a, &o, &src, &b, &rc)) {
        Unit u;
        b.for_run = true;
        if (unit_load(&u, src, &o)) {
            rc = build_unit(&u, &b, &o);
            /* what outlives the unit's arena */
            b.run_path = b.run_path ? arena_strdup(a, b.run_path) : NULL;
            b.stage.path = b.stage.path ? arena_strdup(a, b.stage.path) : NULL;
            u_emulated = u.target != NULL;
            u_target = u.target ? arena_strdup(a, u.target->name) : "";
        }
        unit_free(&u);
    }
    if (rc == EXIT_OK) {     /* the build's signals are held until the stage is removed */
        if (!proc_interrupted()) {
            if (o.emulate && u_emulated)
                fprintf(stderr, "cairn run: emulated: device work runs on host threads, judged against %s; "
                                "nothing here is evidence about a device\n", u_target);
            rc = run_program(a, &b, &o);
        }
        stage_remove(&b.stage);
        proc_defer_end(&b.defer);
    }
    arena_free(a);
    return rc;
}
