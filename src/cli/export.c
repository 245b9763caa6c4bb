/*
 * export.c: cairn export, which packages one CAIRN function for a kernel
 * benchmark, and cairn export DIR, which checks such a package.
 *
 *   cairn export NAME --harness sol-execbench|gpumode|kernelbench --symbol S --out DIR [--mapping FILE]
 *   cairn export DIR
 *
 * NAME is a project (a directory with cairn.toml, or the manifest) or a
 * .cairn file; the mapping is harness.toml beside it unless --mapping names
 * one. The export builds the library (cairn build --header, so the program
 * is checked as any build checks it), holds the mapping to the function's
 * signature (harness.c), and writes, in a staging directory renamed into
 * place only when everything is written:
 *
 *   DIR/export/NAME_cairn.cu|.cpp   the emitted code with the runtime inlined
 *   DIR/export/S_binding.cpp        the PyTorch binding (export_cpp.c)
 *   DIR/export/NAME.h, the source, the mapping, the receipt
 *   DIR/solution.json | submission.py | model_new.py   the submission (export_sub.c)
 *   DIR/harness.json                the cairn.harness/1 record
 */
#include "harness.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char export_help[] =
    "usage: cairn export NAME --harness FORMAT --symbol S --out DIR [--mapping FILE] [--device-target T]\n"
    "       cairn export DIR\n"
    "\n"
    "Packages the function S of the project NAME (a directory holding cairn.toml, the manifest, or a\n"
    ".cairn file) as a benchmark submission in DIR: FORMAT is sol-execbench (solution.json), gpumode\n"
    "(submission.py) or kernelbench (model_new.py, a ModelNew). harness.toml beside the project, or\n"
    "--mapping, says which benchmark argument feeds which parameter. DIR/harness.json records what\n"
    "was written and why. `cairn export DIR` checks a package: every file against the SHA-256 the\n"
    "record holds. See docs/harness.md.\n";

typedef struct {
    const char *name, *harness, *symbol, *out, *mapping, *target;
    bool help;
} ExportArgs;

static bool export_args(ExportArgs *x, int argc, char **argv)
{
    memset(x, 0, sizeof *x);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = !strcmp(a, "--harness") ? &x->harness : !strcmp(a, "--symbol") ? &x->symbol
                            : !strcmp(a, "--out") ? &x->out : !strcmp(a, "--mapping") ? &x->mapping
                            : !strcmp(a, "--device-target") ? &x->target : NULL;
        if (slot) {
            if (i + 1 >= argc) {
                fprintf(stderr, "cairn export: %s needs a value\n", a);
                return false;
            }
            *slot = argv[++i];
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            x->help = true;
        } else if (a[0] == '-') {
            fprintf(stderr, "cairn export: unknown option %s\n%s", a, export_help);
            return false;
        } else if (x->name) {
            fprintf(stderr, "cairn export: one NAME or DIR, not %s and %s\n", x->name, a);
            return false;
        } else {
            x->name = a;
        }
    }
    return true;
}

/* -------------------------------------------------------------- the project */

typedef struct {
    const char *source, *dir, *lib, *target;   /* dir: where harness.toml is looked for */
} Project;

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool find_project(Arena *a, const char *name, const char *target, Project *p)
{
    memset(p, 0, sizeof *p);
    const char *manifest = is_dir(name) ? arena_printf(a, "%s/cairn.toml", name) : NULL;
    size_t n = strlen(name);
    if (!manifest && n > 5 && !strcmp(name + n - 5, ".toml"))
        manifest = name;
    if (manifest) {
        Manifest m;
        if (!manifest_read(a, manifest, false, &m))
            return false;
        if (!m.source) {
            fprintf(stderr, "%s: error: the manifest names no source\n  help: add source = \"src/NAME.cairn\" under [build]\n",
                    manifest);
            return false;
        }
        char *d = arena_strdup(a, manifest), *slash = strrchr(d, '/');
        p->dir = slash ? (*slash = '\0', d) : ".";
        p->source = m.source[0] == '/' ? m.source : arena_printf(a, "%s/%s", p->dir, m.source);
        p->target = target ? target : m.device_target;
        const char *stem = strrchr(p->source, '/') ? strrchr(p->source, '/') + 1 : p->source;
        p->lib = m.name ? m.name : arena_strndup(a, stem, strcspn(stem, "."));
        return true;
    }
    if (n > 6 && !strcmp(name + n - 6, ".cairn")) {
        p->source = name;
        char *d = arena_strdup(a, name), *slash = strrchr(d, '/');
        p->dir = slash ? (*slash = '\0', d) : ".";
        const char *stem = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
        p->lib = arena_strndup(a, stem, strlen(stem) - 6);
        p->target = target;
        return true;
    }
    fprintf(stderr, "cairn export: %s is neither a project (a directory with cairn.toml, or a manifest) nor a "
                    ".cairn file\n", name);
    return false;
}

/* cairn build --header into dir, by this same executable. */
static bool build_library(Arena *a, const Project *p, const char *dir)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return false;
    self[n] = '\0';
    char *argv[] = {"cairn", "build", (char *)p->source, "--header", "--quiet", "--out", (char *)dir,
                    p->target ? "--device-target" : NULL, (char *)p->target, NULL};
    ProcCall c = {.argv = argv, .file = self, .stdout_path = "/dev/null"};
    int rc = proc_call(&c);
    (void)a;
    return rc == 0;
}

/* The emitted file with every runtime header it includes inlined, once
 * each, so that the submission is one file a benchmark compiles by itself. */
static bool amalgamate(Arena *a, FILE *out, const char *path, const char *runtime, Vec *seen)
{
    char *text = hx_read_file(a, path, NULL);
    if (!text) {
        fprintf(stderr, "cairn export: cannot read %s: %s\n", path, strerror(errno));
        return false;
    }
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) + 1 : strlen(line);
        char name[256];
        if (sscanf(line, "#include \"%255[^\"]\"", name) == 1 && !strncmp(name, "cairn_", 6)) {
            /* Every include is expanded where it stands, since it may sit in an
             * #if this text cannot judge; the headers' guards make a second copy
             * empty. Only one already being expanded is left out (a cycle). */
            bool open = false;
            for (int i = 0; i < seen->n; i++)
                open |= !strcmp(seen->v[i], name);
            if (!open) {
                vec_push(a, seen, arena_strdup(a, name));
                fprintf(out, "/* ---- runtime/%s, inlined by cairn export ---- */\n", name);
                if (!amalgamate(a, out, arena_printf(a, "%s/%s", runtime, name), runtime, seen))
                    return false;
                fprintf(out, "/* ---- end of runtime/%s ---- */\n", name);
                seen->n--;
            }
        } else {
            fwrite(line, 1, len, out);
        }
        line += len;
    }
    return true;
}

/* ------------------------------------------------------------ writing files */

typedef struct {
    Arena *a;
    const char *stage;     /* the staging directory */
    cJSON *files;          /* harness.json's list: path, bytes, sha256 */
} Out;

static bool put(Out *o, const char *rel, const char *text, size_t n)
{
    const char *path = arena_printf(o->a, "%s/%s", o->stage, rel);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(text, 1, n, f) != n || fclose(f)) {
        fprintf(stderr, "cairn export: cannot write %s: %s\n", path, strerror(errno));
        return false;
    }
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "path", rel);
    cJSON_AddNumberToObject(e, "bytes", (double)n);
    cJSON_AddStringToObject(e, "sha256", hx_sha256(o->a, text, n));
    cJSON_AddItemToArray(o->files, e);
    return true;
}

/* Text written by fn into memory. */
typedef struct {
    char *s;
    size_t n;
} Text;

static FILE *text_open(Text *t)
{
    memset(t, 0, sizeof *t);
    return open_memstream(&t->s, &t->n);
}

static const char *text_close(Arena *a, FILE *f, Text *t, size_t *n)
{
    fclose(f);
    char *s = arena_strndup(a, t->s, t->n);
    *n = t->n;
    free(t->s);
    return s;
}

static bool remove_tree(const char *path)
{
    char *argv[] = {"rm", "-rf", (char *)path, NULL};
    ProcCall c = {.argv = argv};
    return proc_call(&c) == 0;
}

/* The package goes into place whole: DIR is replaced only when it is empty
 * or an earlier package (it has harness.json). */
static bool commit_dir(Arena *a, const char *stage, const char *out)
{
    chmod(stage, 0755);   /* mkdtemp made it the owner's only */
    if (is_dir(out)) {
        if (access(arena_printf(a, "%s/harness.json", out), F_OK) != 0 && rmdir(out) != 0) {
            fprintf(stderr, "cairn export: %s exists and is not an earlier export (it has no harness.json): "
                            "name another --out\n", out);
            return false;
        }
        const char *old = arena_printf(a, "%s.cairn-old-%ld", out, (long)getpid());
        if (is_dir(out) && rename(out, old) != 0)
            return false;
        bool ok = rename(stage, out) == 0;
        remove_tree(ok ? old : stage);
        if (!ok)
            rename(old, out);
        return ok;
    }
    if (rename(stage, out) != 0) {
        fprintf(stderr, "cairn export: cannot move the package into %s: %s\n", out, strerror(errno));
        return false;
    }
    return true;
}

/* -------------------------------------------------------------------- flags */

/* The flags keep CAIRN's numerics (no contraction, no fast math: every
 * rounding is the one the program names) and a loop the program may never
 * leave (C++ may assume a loop without effects ends). */
void hx_flags(Arena *a, const char *target, cJSON **nvcc, cJSON **cxx)
{
    static const char *const host[] = {"-std=c++20", "-O3", "-ffp-contract=off", "-fno-fast-math",
                                       "-fno-finite-loops", "-fno-strict-aliasing", NULL};
    *cxx = cJSON_CreateArray();
    for (int i = 0; host[i]; i++)
        cJSON_AddItemToArray(*cxx, cJSON_CreateString(host[i]));
    *nvcc = cJSON_CreateArray();
    if (!target)
        return;
    const char *dev[] = {"-std=c++20", "-O3", "--fmad=false", arena_printf(a, "-arch=%s", target), "--extended-lambda",
                         "--expt-relaxed-constexpr", "-Xcompiler",
                         "-ffp-contract=off,-fno-fast-math,-fno-finite-loops,-fno-strict-aliasing", "-w", NULL};
    for (int i = 0; dev[i]; i++)
        cJSON_AddItemToArray(*nvcc, cJSON_CreateString(dev[i]));
}

/* ------------------------------------------------------------------ export */

int cmd_export(int argc, char **argv)
{
    ExportArgs x;
    if (!export_args(&x, argc, argv))
        return EXIT_USAGE;
    if (x.help) {
        fputs(export_help, stdout);
        return EXIT_OK;
    }
    if (!x.name) {
        fputs(export_help, stderr);
        return EXIT_USAGE;
    }
    Arena *a = arena_new();
    int rc;
    if (!x.harness && !x.symbol && !x.out && !x.mapping && is_dir(x.name) &&
        access(arena_printf(a, "%s/harness.json", x.name), F_OK) == 0)
        rc = hx_check_package(a, x.name);
    else
        rc = hx_export(a, x.name, x.harness, x.symbol, x.out, x.mapping, x.target);
    arena_free(a);
    return rc;
}

static bool copy_in(Out *o, const char *from, const char *rel)
{
    size_t n;
    char *t = hx_read_file(o->a, from, &n);
    if (!t) {
        fprintf(stderr, "cairn export: cannot read %s: %s\n", from, strerror(errno));
        return false;
    }
    return put(o, rel, t, n);
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Everything but the submission and harness.json, into o->stage. */
static bool write_export(Out *o, const Harness *h, const Project *p, const char *build, const char *mapping,
                         HxSources *src)
{
    Arena *a = o->a;
    const char *lib = h->library;
    Text t;
    FILE *f = text_open(&t);
    Vec seen = {0};
    if (!amalgamate(a, f, arena_printf(a, "%s/%s.c", build, lib), cairn_runtime_dir(a), &seen)) {
        fclose(f);
        return false;
    }
    src->code_name = arena_printf(a, "%s_cairn.%s", lib, h->device_lib ? "cu" : "cpp");
    src->code = text_close(a, f, &t, &src->code_len);
    char *header = hx_read_file(a, arena_printf(a, "%s/%s.h", build, lib), NULL);
    if (!header)
        return false;
    f = text_open(&t);
    hx_write_binding(a, f, h, header, src->format);
    src->binding_name = arena_printf(a, "%s_binding.cpp", h->fn);
    src->binding = text_close(a, f, &t, &src->binding_len);
    return put(o, arena_printf(a, "export/%s", src->code_name), src->code, src->code_len) &&
           put(o, arena_printf(a, "export/%s", src->binding_name), src->binding, src->binding_len) &&
           put(o, arena_printf(a, "export/%s.h", lib), header, strlen(header)) &&
           copy_in(o, p->source, arena_printf(a, "export/%s", base_name(p->source))) &&
           copy_in(o, mapping, "export/harness.toml") &&
           copy_in(o, arena_printf(a, "%s/%s.receipt.json", build, lib), arena_printf(a, "export/%s.receipt.json", lib));
}

static int fail_export(Arena *a, const char *stage, int rc)
{
    (void)a;
    if (stage)
        remove_tree(stage);
    return rc;
}

int hx_export(Arena *a, const char *name, const char *harness, const char *symbol, const char *out,
              const char *mapping, const char *target)
{
    if (!harness || !symbol || !out) {
        fprintf(stderr, "cairn export: packaging %s needs --harness, --symbol and --out\n%s", name, export_help);
        return EXIT_USAGE;
    }
    HxFormat fmt;
    if (!hx_format_parse(harness, &fmt)) {
        fprintf(stderr, "cairn export: unknown --harness %s: the formats are sol-execbench, gpumode and kernelbench\n",
                harness);
        return EXIT_USAGE;
    }
    Project p;
    if (!find_project(a, name, target, &p))
        return EXIT_USAGE;
    if (!mapping)
        mapping = arena_printf(a, "%s/harness.toml", p.dir);
    if (access(mapping, R_OK) != 0) {
        fprintf(stderr, "cairn export: no mapping: %s: %s\n  help: write harness.toml beside the project "
                        "(docs/harness.md), or name one with --mapping\n", mapping, strerror(errno));
        return EXIT_USAGE;
    }
    Harness h;
    if (!hx_read(a, mapping, &h))
        return EXIT_USAGE;
    char *parent = arena_strdup(a, out), *slash = strrchr(parent, '/');
    const char *pdir = slash ? (*slash = '\0', *parent ? parent : "/") : ".";
    for (char *q = (char *)pdir + 1; *q; q++)   /* --out out/rmsnorm makes out/ */
        if (*q == '/') {
            *q = '\0';
            mkdir(pdir, 0777);
            *q = '/';
        }
    mkdir(pdir, 0777);
    char *stage = arena_printf(a, "%s/.%s.cairn-tmp-%ld-XXXXXX", pdir, base_name(out), (long)getpid());
    if (!is_dir(pdir) || !mkdtemp(stage)) {
        fprintf(stderr, "cairn export: cannot create the package beside %s: %s\n", out, strerror(errno));
        return EXIT_USAGE;
    }
    const char *build = arena_printf(a, "%s/build", stage);
    if (mkdir(arena_printf(a, "%s/export", stage), 0777) != 0)
        return fail_export(a, stage, EXIT_USAGE);
    if (!build_library(a, &p, build))
        return fail_export(a, stage, EXIT_REFUSED);
    char *rtext = hx_read_file(a, arena_printf(a, "%s/%s.receipt.json", build, p.lib), NULL);
    cJSON *receipt = rtext ? cJSON_Parse(rtext) : NULL;
    const cJSON *exports = cJSON_GetObjectItemCaseSensitive(receipt, "exports");
    if (!exports) {
        fprintf(stderr, "cairn export: the build of %s left no receipt with exports\n", p.source);
        return fail_export(a, stage, EXIT_USAGE);
    }
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(receipt, "device_target");
    const cJSON *dtn = cJSON_GetObjectItemCaseSensitive(dt, "name");   /* the receipt's target record */
    const char *dev_target = cJSON_IsString(dtn) ? dtn->valuestring : cJSON_IsString(dt) ? dt->valuestring : NULL;
    Sink s;
    sink_init(&s, stderr, false);
    if (!hx_bind(a, &h, &s, exports, symbol, fmt, dev_target)) {
        fprintf(stderr, "%s: refused (%d error%s)\n", mapping, s.errors, s.errors == 1 ? "" : "s");
        cJSON_Delete(receipt);
        return fail_export(a, stage, EXIT_REFUSED);
    }
    Out o = {a, stage, cJSON_CreateArray()};
    HxSources src = {.format = fmt, .target = dev_target};
    hx_flags(a, h.device_lib ? dev_target : NULL, &src.nvcc, &src.cxx);
    bool ok = write_export(&o, &h, &p, build, mapping, &src);
    const char *sub = NULL;
    ok = ok && (sub = hx_write_submission(a, stage, &h, &src)) != NULL;
    if (ok) {
        cJSON *r = hx_record(a, &h, &src, sub, o.files, mapping, p.source, rtext);
        o.files = NULL;
        char *json = cJSON_Print(r);
        FILE *f = fopen(arena_printf(a, "%s/harness.json", stage), "w");
        ok = f && fputs(json, f) >= 0 && fputc('\n', f) != EOF && fclose(f) == 0;
        free(json);
        cJSON_Delete(r);
    }
    cJSON_Delete(o.files);
    cJSON_Delete(receipt);
    if (!ok || !remove_tree(build) || !commit_dir(a, stage, out))
        return fail_export(a, stage, EXIT_USAGE);
    printf("cairn: exported %s for %s in %s (%s, export/, harness.json)\n", symbol, hx_format_name(fmt), out, sub);
    return EXIT_OK;
}

/* ----------------------------------------------------------------- checking */

int hx_check_package(Arena *a, const char *dir)
{
    char *text = hx_read_file(a, arena_printf(a, "%s/harness.json", dir), NULL);
    cJSON *r = text ? cJSON_Parse(text) : NULL;
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(r, "format");
    if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, "cairn.harness/1")) {
        cJSON_Delete(r);
        return hx_broken(dir, "harness.json", "it is not a cairn.harness/1 record");
    }
    const cJSON *files = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "export"), "files");
    const cJSON *sub = cJSON_GetObjectItemCaseSensitive(r, "submission");
    int n = 0, rc = EXIT_OK;
    cJSON *all = cJSON_CreateArray();
    cJSON_AddItemReferenceToArray(all, (cJSON *)sub);
    for (int i = 0; i < cJSON_GetArraySize(files); i++)
        cJSON_AddItemReferenceToArray(all, cJSON_GetArrayItem(files, i));
    for (int i = 0; i < cJSON_GetArraySize(all) && rc == EXIT_OK; i++) {
        const cJSON *e = cJSON_GetArrayItem(all, i);
        const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "path"));
        const char *want = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "sha256"));
        if (!path || !want) {
            rc = hx_broken(dir, "harness.json", "an entry has no path or sha256");
            break;
        }
        size_t len;
        char *t = hx_read_file(a, arena_printf(a, "%s/%s", dir, path), &len);
        if (!t)
            rc = hx_broken(dir, path, arena_printf(a, "it cannot be read: %s", strerror(errno)));
        else if (strcmp(hx_sha256(a, t, len), want))
            rc = hx_broken(dir, path, arena_printf(a, "its sha256 is %s, and harness.json records %s: it changed after "
                                                   "the export", hx_sha256(a, t, len), want));
        n++;
    }
    if (rc == EXIT_OK)
        rc = hx_check_embedded(a, dir, r);
    if (rc == EXIT_OK) {
        printf("{\"status\": \"harness-intact\", \"package\": ");
        json_write_string(stdout, dir);
        printf(", \"harness\": ");
        json_write_string(stdout, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "harness")));
        printf(", \"function\": ");
        json_write_string(stdout, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                                      cJSON_GetObjectItemCaseSensitive(r, "function"), "name")));
        printf(", \"files\": %d}\n", n);
    }
    cJSON_Delete(all);
    cJSON_Delete(r);
    return rc;
}
