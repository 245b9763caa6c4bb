/*
 * new.c: cairn new, which starts a project.
 *
 *   cairn new DIR                                   a library project with one function
 *   cairn new DIR --from-sol-execbench definition.json [--device-target T]
 *
 * From a SOL-ExecBench problem it writes the reference's signature (a usize
 * per variable axis, a const per fixed one, an @device view per tensor and a
 * scalar per number) above an empty body with the PyTorch reference as a
 * comment, harness.toml (the mapping cairn export reads), the problem's files
 * under problem/, and policy.json with the tightest max_atol and max_rtol any
 * workload states. The device target defaults to sm_100a, the B200 the
 * benchmark runs on. Nothing is written unless all of it can be.
 */
#include "harness.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char new_help[] =
    "usage: cairn new DIR [--from-sol-execbench definition.json] [--device-target T]\n"
    "\n"
    "Starts a project in DIR (which must not exist or be empty): cairn.toml and src/NAME.cairn,\n"
    "NAME being DIR's last component. From a SOL-ExecBench definition it writes the reference's\n"
    "signature, harness.toml, the problem's files (problem/) and policy.json; the device target is\n"
    "sm_100a unless --device-target names another. See docs/harness.md.\n";

static const char *const keywords[] = {
    "fn", "kernel", "extern", "test", "let", "mut", "if", "else", "for", "in", "while", "break", "continue",
    "return", "parallel", "reduce", "scan", "compact", "yield", "warp", "spawn", "after", "blocks", "threads",
    "then", "shared", "pipeline", "depth", "barrier", "buffer", "zeroed", "layout", "const", "derive", "plan",
    "unsafe", "asm", "effects", "launch", "task", "lock", "true", "false", NULL};

/* A benchmark name as a CAIRN name: letters, digits and _, not a keyword. */
static const char *cairn_name(Arena *a, const char *s)
{
    char *n = arena_printf(a, "%s%s", isdigit((unsigned char)*s) ? "_" : "", s);
    for (char *p = n; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            *p = '_';
    for (int i = 0; keywords[i]; i++)
        if (!strcmp(n, keywords[i]))
            return arena_printf(a, "%s_", n);
    return n;
}

static const char *upper(Arena *a, const char *s)
{
    char *u = arena_strdup(a, s);
    for (char *p = u; *p; p++)
        *p = (char)toupper((unsigned char)*p);
    return u;
}

static bool write_file(Arena *a, const char *dir, const char *rel, const char *text)
{
    const char *path = arena_printf(a, "%s/%s", dir, rel);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f)) {
        fprintf(stderr, "cairn new: cannot write %s: %s\n", path, strerror(errno));
        return false;
    }
    return true;
}

static const char *axis_kind(const cJSON *axes, const char *name)
{
    const cJSON *ax = cJSON_GetObjectItemCaseSensitive(axes, name);
    const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ax, "type"));
    return t ? t : "";
}

/* The element count of a shape as a CAIRN extent: fixed axes by their
 * constant, the others by their parameter. */
static const char *extent_of(Arena *a, const cJSON *shape, const cJSON *axes)
{
    const char *e = "";
    for (int i = 0; i < cJSON_GetArraySize(shape); i++) {
        const char *d = cJSON_GetStringValue(cJSON_GetArrayItem(shape, i));
        const char *term = !d ? "1" : isdigit((unsigned char)*d) ? d
                                  : !strcmp(axis_kind(axes, d), "const") ? upper(a, cairn_name(a, d)) : cairn_name(a, d);
        e = arena_printf(a, "%s%s%s", e, *e ? " * " : "", term);
    }
    return *e ? e : "1";
}

static bool from_sol(Arena *a, const char *dir, const char *def_path, const char *target)
{
    size_t len;
    char *text = hx_read_file(a, def_path, &len);
    if (!text) {
        fprintf(stderr, "cairn new: cannot read %s: %s\n", def_path, strerror(errno));
        return false;
    }
    cJSON *d = cJSON_Parse(text);
    const cJSON *axes = cJSON_GetObjectItemCaseSensitive(d, "axes");
    const cJSON *ins = cJSON_GetObjectItemCaseSensitive(d, "inputs"), *outs = cJSON_GetObjectItemCaseSensitive(d, "outputs");
    const char *defname = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "name"));
    if (!cJSON_IsObject(axes) || !cJSON_IsObject(ins) || !cJSON_IsObject(outs) || !defname) {
        fprintf(stderr, "%s: error: not a SOL-ExecBench definition (it needs name, axes, inputs and outputs)\n",
                def_path);
        cJSON_Delete(d);
        return false;
    }
    defname = arena_strdup(a, defname);   /* it outlives the parsed definition */
    const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
    const char *fn = cairn_name(a, base);
    char *src = NULL, *map = NULL;
    size_t srcn = 0, mapn = 0;
    FILE *s = open_memstream(&src, &srcn), *m = open_memstream(&map, &mapn);
    fprintf(s, "// %s: the SOL-ExecBench problem %s (cairn new --from-sol-execbench).\n", fn, defname);
    const char *desc = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "description"));
    if (desc)
        fprintf(s, "// %s\n", desc);
    fprintf(s, "//\n// The PyTorch reference:\n");
    const char *ref = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "reference"));
    for (const char *p = ref ? ref : ""; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(s, "//   %.*s\n", (int)n, p);
        p += n + (nl ? 1 : 0);
    }
    fprintf(m, "# The mapping of %s for SOL-ExecBench (docs/harness.md), written by cairn new.\n"
               "# The benchmark's validation differs from CAIRN's in four ways, and all four apply here: it\n"
               "# requires a matched ratio of elements (CAIRN: every element), fails any NaN or infinity (CAIRN\n"
               "# agrees a NaN with a NaN), compares in f32 (CAIRN: f64), and may cap the largest error.\n",
            defname);
    const char *params = NULL;
    bool ok = true, any_axes = false, any_extents = false;
    cJSON *ax;
    cJSON_ArrayForEach(ax, axes)
    {
        const char *k = axis_kind(axes, ax->string);
        if (!strcmp(k, "const")) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(ax, "value");
            fprintf(s, "const %s:usize = %.0f;\n", upper(a, cairn_name(a, ax->string)), v ? v->valuedouble : 0.0);
            if (!any_axes)
                fprintf(m, "\n[axes]\n");
            any_axes = true;
            fprintf(m, "%s = %.0f\n", ax->string, v ? v->valuedouble : 0.0);
        }
    }
    cJSON_ArrayForEach(ax, axes)
    {
        const char *k = axis_kind(axes, ax->string);
        if (strcmp(k, "const")) {
            params = arena_printf(a, "%s%s%s:usize", params ? params : "", params ? ", " : "", cairn_name(a, ax->string));
            if (!any_extents)
                fprintf(m, "\n[extents]\n");
            any_extents = true;
            const char *expr = !strcmp(k, "expr") ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ax, "expression"))
                                                  : ax->string;
            /* // is floor division, which on sizes (never negative) is CAIRN's / */
            char *e = arena_strdup(a, expr ? expr : ax->string);
            for (char *p = strstr(e, "//"); p; p = strstr(p, "//"))
                memmove(p, p + 1, strlen(p));
            fprintf(m, "%s = \"%s\"\n", cairn_name(a, ax->string), e);
        }
    }
    const cJSON *lists[2] = {ins, outs};
    for (int o = 0; o < 2; o++) {
        const cJSON *t;
        cJSON_ArrayForEach(t, lists[o])
        {
            const char *dtype = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "dtype"));
            bool known;
            const char *elem = dtype ? hx_dtype_elem(dtype, &known) : NULL;
            if (!elem) {
                fprintf(stderr, "%s:1:1: error[E-HARNESS-DTYPE]: %s %s is %s, %s\n  help: a kernel over it is "
                                "written in foreign CUDA; CAIRN's types are in docs/language.md\n",
                        def_path, o ? "output" : "input", t->string, dtype ? dtype : "(no dtype)",
                        known ? "a format CAIRN has no type for" : "not a dtype");
                ok = false;
                continue;
            }
            const cJSON *shape = cJSON_GetObjectItemCaseSensitive(t, "shape");
            const char *name = cairn_name(a, t->string);
            if (cJSON_IsArray(shape))
                params = arena_printf(a, "%s%s%s:%s<%s>[%s]@device", params ? params : "", params ? ", " : "", name,
                                      o ? "rw" : "ro", elem, extent_of(a, shape, axes));
            else
                params = arena_printf(a, "%s%s%s:%s", params ? params : "", params ? ", " : "", name, elem);
            fprintf(m, "\n[[argument]]\nname = \"%s\"\nparameter = \"%s\"\ndtype = \"%s\"\n", t->string, name, dtype);
            if (cJSON_IsArray(shape)) {
                fprintf(m, "shape = [");
                for (int i = 0; i < cJSON_GetArraySize(shape); i++)
                    fprintf(m, "%s\"%s\"", i ? ", " : "", cJSON_GetStringValue(cJSON_GetArrayItem(shape, i)));
                fprintf(m, "]\n");
            }
            if (o)
                fprintf(m, "output = true\n");
        }
    }
    fprintf(s, "\nfn %s(%s) {\n}\n", fn, params ? params : "");
    fprintf(m, "\n[benchmark]\ndefinition = \"%s\"\nproblem = \"%s/problem\"\n", defname, dir);
    fclose(s);
    fclose(m);
    /* policy.json: the tightest tolerances any workload states (SOL-ExecBench's defaults otherwise) */
    double atol = 1e-2, rtol = 1e-2;
    char *dirpart = arena_strdup(a, def_path), *slash = strrchr(dirpart, '/');
    const char *pdir = slash ? (*slash = '\0', dirpart) : ".";
    const char *wl_path = arena_printf(a, "%s/workload.jsonl", pdir);
    char *wl = hx_read_file(a, wl_path, NULL);
    int nwl = 0;
    for (char *line = wl ? arena_strdup(a, wl) : NULL; line && *line;) {   /* a copy: lines are cut in place */
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        cJSON *w = cJSON_Parse(line);
        const cJSON *tol = cJSON_GetObjectItemCaseSensitive(w, "tolerance");
        const cJSON *ta = cJSON_GetObjectItemCaseSensitive(tol, "max_atol"), *tr = cJSON_GetObjectItemCaseSensitive(tol, "max_rtol");
        if (w)
            nwl++;
        if (cJSON_IsNumber(ta) && ta->valuedouble < atol)
            atol = ta->valuedouble;
        if (cJSON_IsNumber(tr) && tr->valuedouble < rtol)
            rtol = tr->valuedouble;
        cJSON_Delete(w);
        line = nl ? nl + 1 : line + strlen(line);
    }
    char *policy = arena_printf(a, "{\n  \"max_atol\": %g,\n  \"max_rtol\": %g,\n  \"from\": \"problem/workload.jsonl\",\n"
                                   "  \"workloads\": %d,\n  \"note\": \"the tightest tolerances any workload states "
                                   "(SOL-ExecBench's defaults, 1e-2, where none does), for cairn validate --policy\"\n}\n",
                                atol, rtol, nwl);
    char *toml = arena_printf(a, "[build]\nname = \"%s\"\nkind = \"lib\"\nsource = \"src/%s.cairn\"\ndevice_target = \"%s\"\n",
                              fn, fn, target ? target : "sm_100a");
    ok = ok && mkdir(arena_printf(a, "%s/src", dir), 0777) == 0 && mkdir(arena_printf(a, "%s/problem", dir), 0777) == 0 &&
         write_file(a, dir, "cairn.toml", toml) && write_file(a, dir, arena_printf(a, "src/%s.cairn", fn), src) &&
         write_file(a, dir, "harness.toml", map) && write_file(a, dir, "policy.json", policy) &&
         write_file(a, dir, "problem/definition.json", text) && (!wl || write_file(a, dir, "problem/workload.jsonl", wl));
    free(src);
    free(map);
    cJSON_Delete(d);
    if (ok)
        printf("cairn: started %s from the SOL-ExecBench problem %s: cairn.toml, src/%s.cairn, harness.toml, "
               "policy.json (max_atol %g, max_rtol %g over %d workloads), problem/\n"
               "  the benchmark's validation differs from CAIRN's: a matched ratio (not every element), any NaN or "
               "infinity fails, f32 comparison, an optional error cap (harness.toml says so)\n",
               dir, defname, fn, atol, rtol, nwl);
    return ok;
}

/* A plain project: a library with one function to start from. */
static bool plain(Arena *a, const char *dir, const char *target)
{
    const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
    const char *fn = cairn_name(a, base);
    const char *toml = arena_printf(a, "[build]\nname = \"%s\"\nkind = \"lib\"\nsource = \"src/%s.cairn\"\n%s%s%s", fn, fn,
                                    target ? "device_target = \"" : "", target ? target : "", target ? "\"\n" : "");
    const char *src = arena_printf(a, "// %s: a CAIRN library (cairn build %s builds it; docs/cli.md).\n\n"
                                      "fn %s(n:usize, a:f32, x:ro<f32>[n]%s, y:rw<f32>[n]%s) {\n"
                                      "  parallel i in n { y[i] = a * x[i] + y[i]; }\n}\n",
                                   fn, dir, fn, target ? "@device" : "", target ? "@device" : "");
    bool ok = mkdir(arena_printf(a, "%s/src", dir), 0777) == 0 && write_file(a, dir, "cairn.toml", toml) &&
              write_file(a, dir, arena_printf(a, "src/%s.cairn", fn), src);
    if (ok)
        printf("cairn: started %s: cairn.toml, src/%s.cairn\n", dir, fn);
    return ok;
}

int cmd_new(int argc, char **argv)
{
    const char *dir = NULL, *from = NULL, *target = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(new_help, stdout);
            return EXIT_OK;
        }
        if ((!strcmp(argv[i], "--from-sol-execbench") || !strcmp(argv[i], "--device-target")) && i + 1 < argc) {
            *(argv[i][2] == 'f' ? &from : &target) = argv[i + 1];
            i++;
        } else if (argv[i][0] == '-' || dir) {
            fprintf(stderr, "cairn new: unexpected %s\n%s", argv[i], new_help);
            return EXIT_USAGE;
        } else {
            dir = argv[i];
        }
    }
    if (!dir) {
        fputs(new_help, stderr);
        return EXIT_USAGE;
    }
    if (mkdir(dir, 0777) != 0 && (errno != EEXIST || rmdir(dir) != 0 || mkdir(dir, 0777) != 0)) {
        fprintf(stderr, "cairn new: %s exists and is not empty (or cannot be made): cairn new starts a project in a "
                        "new directory\n", dir);
        return EXIT_USAGE;
    }
    Arena *a = arena_new();
    bool ok = from ? from_sol(a, dir, from, target) : plain(a, dir, target);
    arena_free(a);
    if (!ok) {   /* nothing partial: the directory was made here */
        char *rm[] = {"rm", "-rf", (char *)dir, NULL};
        ProcCall c = {.argv = rm};
        proc_call(&c);
    }
    return ok ? EXIT_OK : EXIT_REFUSED;
}
