/*
 * export_rec.c: harness.json, the cairn.harness/1 record of an export, and
 * the check that a package's submission still embeds the export's sources.
 *
 * The record names the format and the upstream commit it follows, the
 * function and its signature, the mapping, the entry the binding calls (and
 * for a cf_ entry the E-ENQUEUE reason), the flags and why, the export's
 * files with their SHA-256, the commands that would evaluate it (cairn runs
 * none), what the benchmark's score means, and where its validation differs
 * from CAIRN's.
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

static cJSON *mapping_json(const Harness *h)
{
    cJSON *m = cJSON_CreateObject();
    cJSON *axes = cJSON_AddObjectToObject(m, "axes");
    for (int i = 0; i < h->axes.n; i++)
        cJSON_AddNumberToObject(axes, ((HxAxis *)h->axes.v[i])->name, (double)((HxAxis *)h->axes.v[i])->value);
    cJSON *ext = cJSON_AddObjectToObject(m, "extents");
    for (int i = 0; i < h->extents.n; i++)
        cJSON_AddStringToObject(ext, ((HxExtent *)h->extents.v[i])->param, ((HxExtent *)h->extents.v[i])->text);
    cJSON *args = cJSON_AddArrayToObject(m, "arguments"), *res = cJSON_AddArrayToObject(m, "results");
    for (int i = 0; i < h->args.n; i++) {
        const HxArg *g = h->args.v[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", g->name);
        cJSON_AddStringToObject(e, "parameter", g->parameter);
        cJSON_AddStringToObject(e, "dtype", g->dtype);
        cJSON_AddStringToObject(e, "type", h->params[g->param].type);
        if (g->shape) {
            cJSON *sh = cJSON_AddArrayToObject(e, "shape");
            for (int d = 0; d < g->nshape; d++)
                cJSON_AddItemToArray(sh, cJSON_CreateString(g->shape[d]));
        } else {
            cJSON_AddNullToObject(e, "shape");
        }
        if (!g->result)
            cJSON_AddBoolToObject(e, "output", g->output);
        cJSON_AddItemToArray(g->result ? res : args, e);
    }
    return m;
}

static void commands(Arena *a, cJSON *r, const Harness *h, HxFormat f, const char *sub)
{
    cJSON *c = cJSON_AddArrayToObject(r, "commands");
    const char *problem = h->problem ? h->problem : "PROBLEM";
    if (f == HX_SOL) {
        cJSON_AddItemToArray(c, cJSON_CreateString(arena_printf(a, "sol-execbench %s --solution %s", problem, sub)));
    } else if (f == HX_GPUMODE) {
        const char *lb = h->leaderboard ? h->leaderboard : "LEADERBOARD", *gpu = h->gpu ? h->gpu : "GPU";
        static const char *const modes[] = {"test", "benchmark", "profile", "leaderboard"};
        for (int i = 0; i < 4; i++)
            cJSON_AddItemToArray(c, cJSON_CreateString(arena_printf(
                                        a, "popcorn submit --no-tui --leaderboard %s --gpu %s --mode %s %s", lb, gpu,
                                        modes[i], sub)));
        cJSON_AddStringToObject(r, "warning", "popcorn submit --mode leaderboard is a public, ranked submission under "
                                              "your name on gpumode.com");
    } else {
        cJSON_AddItemToArray(c, cJSON_CreateString(arena_printf(
                                    a, "python3 scripts/run_and_check.py ref_origin=local ref_arch_src_path=%s "
                                       "kernel_src_path=%s", problem, sub)));
    }
}

static void meaning(cJSON *r, HxFormat f)
{
    static const char *const score[] = {
        "S = 1 / (1 + (T_k - T_SOL) / (T_b - T_SOL)): 0.5 at the benchmark's PyTorch baseline T_b and 1.0 at its "
        "modelled speed of light T_SOL (a B200 roofline), so a score is no percentage of any quantity",
        "GPU MODE ranks by the benchmarks' mean times: the one benchmark's under ranking_by: last, their arithmetic "
        "mean under mean, their geometric mean under geom; lower is better",
        "fast_p is the fraction of problems solved correctly and faster than PyTorch by more than p",
    };
    cJSON_AddStringToObject(r, "score", score[f]);
    cJSON_AddStringToObject(r, "not", "none of these is the fraction of the speed of light that cairn predict reports");
    cJSON *v = cJSON_AddArrayToObject(r, "validation");
    static const char *const what[] = {"matched ratio", "NaN and infinity", "comparison type", "error cap"};
    static const char *const cairn[] = {"CAIRN requires every element", "CAIRN agrees a NaN with a NaN",
                                        "CAIRN compares in f64", "CAIRN caps no error"};
    static const bool applies[3][4] = {{true, true, true, true}, {false, false, false, false},
                                       {false, false, false, false}};
    static const char *const detail[3][4] = {
        {"passes when at least required_matched_ratio (0.99 by default) of the elements are within max_atol + "
         "max_rtol * |ref|", "fails on any NaN or infinity in either tensor", "compares after casting both to f32",
         "fails when max_error_cap is set and any error exceeds it"},
        {"every element is within atol + rtol * |ref| (the problem's tolerances)", "checked as the problem's "
         "verbose_allclose does", "compares in the output's dtype", "none"},
        {"every element, torch.allclose with the precision's tolerance", "torch.allclose (a NaN fails)",
         "compares in the precision the problem runs in (f32 by default)", "none"},
    };
    for (int i = 0; i < 4; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "difference", what[i]);
        cJSON_AddBoolToObject(e, "applies", applies[f][i]);
        cJSON_AddStringToObject(e, "benchmark", detail[f][i]);
        cJSON_AddStringToObject(e, "cairn", cairn[i]);
        cJSON_AddItemToArray(v, e);
    }
}

cJSON *hx_record(Arena *a, const Harness *h, HxSources *src, const char *submission, cJSON *files,
                 const char *mapping, const char *source, const char *receipt)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "format", "cairn.harness/1");
    cJSON_AddStringToObject(r, "harness", hx_format_name(src->format));
    cJSON *up = cJSON_AddObjectToObject(r, "upstream");
    cJSON_AddStringToObject(up, "repository", src->format == HX_SOL ? "NVIDIA/SOL-ExecBench"
                                              : src->format == HX_GPUMODE ? "gpu-mode/reference-kernels"
                                                                          : "ScalingIntelligence/KernelBench");
    cJSON_AddStringToObject(up, "commit", src->format == HX_SOL ? SOL_COMMIT
                                          : src->format == HX_GPUMODE ? GPUMODE_COMMIT : KERNELBENCH_COMMIT);
    cJSON *fn = cJSON_AddObjectToObject(r, "function");
    cJSON_AddStringToObject(fn, "name", h->fn);
    cJSON_AddStringToObject(fn, "library", h->library);
    cJSON_AddItemToObject(fn, "signature", cJSON_Duplicate(h->fn_json, true));
    cJSON *m = mapping_json(h);
    cJSON_AddStringToObject(m, "path", "export/harness.toml");
    cJSON_AddStringToObject(m, "from", mapping);
    cJSON_AddItemToObject(r, "mapping", m);
    cJSON *b = cJSON_AddObjectToObject(r, "benchmark");
    const char *keys[] = {"definition", "leaderboard", "gpu", "problem", "ranking_by"};
    const char *vals[] = {h->definition, h->leaderboard, h->gpu, h->problem, h->ranking_by};
    for (int i = 0; i < 5; i++)
        if (vals[i])
            cJSON_AddStringToObject(b, keys[i], vals[i]);
    cJSON *e = cJSON_AddObjectToObject(r, "entry");
    cJSON_AddStringToObject(e, "binding", arena_printf(a, "%s::%s", src->binding_name, h->fn));
    cJSON_AddStringToObject(e, "calls", h->device_lib && h->cq ? h->cq : h->cf);
    if (!h->device_lib)
        cJSON_AddStringToObject(e, "why", "a host function: cf_ runs it on CPU tensors and returns when it is done");
    else if (h->cq)
        cJSON_AddStringToObject(e, "why", "queued on torch's current stream (at::cuda::getCurrentCUDAStream) with no "
                                          "wait; a failed guard surfaces at torch's next synchronization");
    else
        cJSON_AddStringToObject(e, "why", arena_printf(a, "no cq_ entry (E-ENQUEUE: %s): cf_ runs with torch's stream "
                                                          "bound by cairn_%s_device_stream and returns when done",
                                                       h->no_cq ? h->no_cq : "", h->library));
    cJSON *fl = cJSON_AddObjectToObject(r, "flags");
    cJSON_AddItemToObject(fl, "nvcc", src->nvcc);
    cJSON_AddItemToObject(fl, "c++", src->cxx);
    cJSON_AddStringToObject(fl, "why", "-ffp-contract=off, --fmad=false and -fno-fast-math keep every rounding the "
                                       "one the program names (SOL-ExecBench would otherwise pass --use_fast_math); "
                                       "-fno-finite-loops keeps a loop the program may never leave; "
                                       "-fno-strict-aliasing as cairn build compiles the runtime");
    cJSON *x = cJSON_AddObjectToObject(r, "export");
    cJSON_AddStringToObject(x, "cairn", "0.1.0");
    if (src->target)
        cJSON_AddStringToObject(x, "device_target", src->target);
    else
        cJSON_AddNullToObject(x, "device_target");
    size_t n;
    char *t = hx_read_file(a, source, &n);
    cJSON_AddStringToObject(x, "source_sha256", t ? hx_sha256(a, t, n) : "");
    cJSON_AddStringToObject(x, "receipt_sha256", hx_sha256(a, receipt, strlen(receipt)));
    cJSON_AddItemToObject(x, "files", files);
    cJSON *s = cJSON_AddObjectToObject(r, "submission");
    cJSON_AddStringToObject(s, "path", submission);
    cJSON_AddNumberToObject(s, "bytes", (double)src->submission_bytes);
    cJSON_AddStringToObject(s, "sha256", src->submission_sha);
    commands(a, r, h, src->format, submission);
    meaning(r, src->format);
    return r;
}

/* The sources solution.json holds, or the lines a Python submission holds,
 * against the export's files. */
static const char *file_sha(const cJSON *record, const char *path)
{
    const cJSON *files = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(record, "export"), "files");
    for (int i = 0; i < cJSON_GetArraySize(files); i++) {
        const cJSON *e = cJSON_GetArrayItem(files, i);
        if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "path")), path))
            return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "sha256"));
    }
    return NULL;
}

int hx_broken(const char *dir, const char *file, const char *why)
{
    printf("{\"status\": \"harness-broken\", \"package\": ");
    json_write_string(stdout, dir);
    printf(", \"file\": ");
    json_write_string(stdout, file);
    printf(", \"why\": ");
    json_write_string(stdout, why);
    printf("}\n");
    return EXIT_REFUSED;
}

/* A Python literal of ours back to its bytes: p at the opening quote. */
static char *py_unstring(Arena *a, const char *p, size_t *n)
{
    char *out = arena_alloc(a, strlen(p) + 1);
    size_t k = 0;
    for (p++; *p && *p != '"'; p++) {
        if (*p != '\\') {
            out[k++] = *p;
            continue;
        }
        p++;
        if (*p == 'n')
            out[k++] = '\n';
        else if (*p == 't')
            out[k++] = '\t';
        else if (*p == 'x' && p[1] && p[2]) {
            char hex[3] = {p[1], p[2], 0};
            out[k++] = (char)strtol(hex, NULL, 16);
            p += 2;
        } else
            out[k++] = *p;
    }
    *n = k;
    return out;
}

int hx_check_embedded(Arena *a, const char *dir, const cJSON *record)
{
    const char *sub = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(record, "submission"), "path"));
    char *text = hx_read_file(a, arena_printf(a, "%s/%s", dir, sub), NULL);
    if (!text)
        return hx_broken(dir, sub, "it cannot be read");
    int found = 0;
    if (!strcmp(sub, "solution.json")) {
        cJSON *s = cJSON_Parse(text);
        const cJSON *srcs = cJSON_GetObjectItemCaseSensitive(s, "sources");
        for (int i = 0; i < cJSON_GetArraySize(srcs); i++) {
            const cJSON *e = cJSON_GetArrayItem(srcs, i);
            const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "path"));
            const char *content = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "content"));
            const char *want = path ? file_sha(record, arena_printf(a, "export/%s", path)) : NULL;
            if (!want || !content || strcmp(hx_sha256(a, content, strlen(content)), want)) {
                cJSON_Delete(s);
                return hx_broken(dir, sub, arena_printf(a, "its source %s is not the export's", path ? path : "?"));
            }
            found++;
        }
        cJSON_Delete(s);
    } else {
        /* ("NAME", "SHA", ( "line" ... )), : the lines from the one after the name to the closing "    ))," */
        for (char *p = strstr(text, "\n    (\""); p; p = strstr(p + 1, "\n    (\"")) {
            size_t nlen;
            char *name = py_unstring(a, p + 6, &nlen);
            size_t blen = 0, cap = 1 << 16;
            char *body = arena_alloc(a, cap);
            char *line = strchr(p + 1, '\n');
            for (; line && strncmp(line + 1, "    )),", 7); line = strchr(line + 1, '\n')) {
                if (strncmp(line + 1, "        \"", 9))
                    continue;
                size_t n;
                char *s = py_unstring(a, line + 9, &n);
                if (blen + n + 1 > cap) {
                    char *bigger = arena_alloc(a, cap = 2 * (blen + n + 1));
                    memcpy(bigger, body, blen);
                    body = bigger;
                }
                memcpy(body + blen, s, n);
                blen += n;
            }
            const char *want = file_sha(record, arena_printf(a, "export/%s", name));
            if (!want || strcmp(hx_sha256(a, body, blen), want))
                return hx_broken(dir, sub, arena_printf(a, "the source %s it embeds is not the export's", name));
            found++;
        }
    }
    if (found != 2)
        return hx_broken(dir, sub, arena_printf(a, "it embeds %d sources, where the export has 2", found));
    return EXIT_OK;
}
