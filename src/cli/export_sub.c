/*
 * export_sub.c: the submission a benchmark loads, and the harness.json
 * record beside it.
 *
 *   sol-execbench  solution.json: spec (cuda_cpp, the entry S_binding.cpp::S,
 *                  destination passing, compile_options with CAIRN's flags)
 *                  and the two sources as its text
 *   gpumode        submission.py: custom_kernel(data), the binding built by
 *                  load_inline at import
 *   kernelbench    model_new.py: class ModelNew(nn.Module), forward(*inputs)
 *
 * The Python files hold each source one line per Python line, with its
 * SHA-256, and check it before load_inline builds it: a submission changed
 * by hand or by a mangled copy refuses to build instead of running other
 * code than the export's.
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

/* s as a Python string literal (UTF-8 text stays as it is). */
static void py_string(FILE *f, const char *s, size_t n)
{
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\x%02x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* One embedded source: ("NAME", "SHA256", ( "line\n" ... )). */
static void py_source(Arena *a, FILE *f, const char *name, const char *text, size_t n)
{
    fputs("    (", f);
    py_string(f, name, strlen(name));
    fputs(", ", f);
    py_string(f, hx_sha256(a, text, n), 64);
    fputs(", (\n", f);
    if (!n)
        fputs("        \"\"\n", f);
    for (size_t i = 0; i < n;) {
        const char *nl = memchr(text + i, '\n', n - i);
        size_t len = nl ? (size_t)(nl - (text + i)) + 1 : n - i;
        fputs("        ", f);
        py_string(f, text + i, len);
        fputc('\n', f);
        i += len;
    }
    fputs("    )),\n", f);
}

static void py_list(FILE *f, const cJSON *arr)
{
    fputc('[', f);
    for (int i = 0; i < cJSON_GetArraySize(arr); i++) {
        const char *s = cJSON_GetArrayItem(arr, i)->valuestring;
        fputs(i ? ", " : "", f);
        py_string(f, s, strlen(s));
    }
    fputc(']', f);
}

/* The part both Python formats share: the sources, their check, the build. */
static void py_common(Arena *a, FILE *f, const Harness *h, const HxSources *src)
{
    const char *key = hx_sha256(a, arena_printf(a, "%s%s", src->code, src->binding), src->code_len + src->binding_len);
    fprintf(f, "# The sources of the CAIRN export (export/ beside this file), one line per line, each with its\n"
               "# SHA-256, checked before the build. harness.json records the flags and why.\n"
               "import hashlib\n\nimport torch\nfrom torch.utils.cpp_extension import load_inline\n\n"
               "_SOURCES = [\n");
    py_source(a, f, src->code_name, src->code, src->code_len);
    py_source(a, f, src->binding_name, src->binding, src->binding_len);
    fputs("]\n\n\ndef _source(name):\n"
          "    for n, sha, lines in _SOURCES:\n"
          "        if n == name:\n"
          "            text = \"\".join(lines)\n"
          "            got = hashlib.sha256(text.encode(\"utf-8\")).hexdigest()\n"
          "            if got != sha:\n"
          "                raise RuntimeError(\"%s: its sha256 is %s, and the export recorded %s: the source changed \"\n"
          "                                   \"after cairn export wrote it\" % (name, got, sha))\n"
          "            return text\n"
          "    raise RuntimeError(\"no embedded source \" + name)\n\n\n", f);
    fprintf(f, "_cairn = load_inline(\n    name=\"cairn_%s_%.12s\",\n", h->fn, key);
    if (h->device_lib) {
        fprintf(f, "    cpp_sources=[_source(\"%s\")],\n    cuda_sources=[_source(\"%s\")],\n", src->binding_name,
                src->code_name);
        fputs("    extra_cuda_cflags=", f);
        py_list(f, src->nvcc);
        fputs(",\n    with_cuda=True,\n", f);
    } else {
        fprintf(f, "    cpp_sources=[_source(\"%s\"), _source(\"%s\")],\n    with_cuda=False,\n", src->code_name,
                src->binding_name);
    }
    fputs("    extra_cflags=", f);
    py_list(f, src->cxx);
    fputs(",\n    verbose=False,\n)\n", f);
}

static char *solution_json(Arena *a, const Harness *h, const HxSources *src)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "name", arena_printf(a, "cairn_%s", h->fn));
    cJSON_AddStringToObject(s, "definition", h->definition);
    cJSON_AddStringToObject(s, "author", "cairn export");
    cJSON_AddStringToObject(s, "description", arena_printf(a, "The CAIRN function %s of the library %s, checked by the "
                                                              "CAIRN toolchain; harness.json records how it was packaged",
                                                           h->fn, h->library));
    cJSON *spec = cJSON_AddObjectToObject(s, "spec");
    cJSON *langs = cJSON_AddArrayToObject(spec, "languages");
    cJSON_AddItemToArray(langs, cJSON_CreateString("cuda_cpp"));
    cJSON *hw = cJSON_AddArrayToObject(spec, "target_hardware");
    cJSON_AddItemToArray(hw, cJSON_CreateString(h->gpu && !strcmp(h->gpu, "LOCAL") ? "LOCAL" : "B200"));
    cJSON_AddStringToObject(spec, "entry_point", arena_printf(a, "%s::%s", src->binding_name, h->fn));
    cJSON_AddArrayToObject(spec, "dependencies");
    cJSON_AddBoolToObject(spec, "destination_passing_style", true);
    cJSON_AddStringToObject(spec, "binding", "torch");
    cJSON *co = cJSON_AddObjectToObject(spec, "compile_options");
    cJSON_AddItemToObject(co, "cflags", cJSON_Duplicate(src->cxx, true));
    cJSON_AddItemToObject(co, "cuda_cflags", cJSON_Duplicate(src->nvcc, true));
    cJSON_AddArrayToObject(co, "ld_flags");
    cJSON *ss = cJSON_AddArrayToObject(s, "sources");
    const char *names[] = {src->binding_name, src->code_name}, *texts[] = {src->binding, src->code};
    for (int i = 0; i < 2; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "path", names[i]);
        cJSON_AddStringToObject(e, "content", texts[i]);
        cJSON_AddItemToArray(ss, e);
    }
    char *out = cJSON_Print(s);
    char *r = arena_printf(a, "%s\n", out);
    free(out);
    cJSON_Delete(s);
    return r;
}

const char *hx_write_submission(Arena *a, const char *dir, const Harness *h, HxSources *src)
{
    char *text = NULL;
    size_t n = 0;
    const char *name;
    if (src->format == HX_SOL) {
        name = "solution.json";
        text = solution_json(a, h, src);
        n = strlen(text);
    } else {
        FILE *f = open_memstream(&text, &n);
        if (src->format == HX_GPUMODE) {
            name = "submission.py";
            if (h->leaderboard)   /* the server reads only the first comment block */
                fprintf(f, "#!POPCORN leaderboard %s\n", h->leaderboard);
            if (h->gpu)
                fprintf(f, "#!POPCORN gpu %s\n", h->gpu);
            fprintf(f, "# A GPU MODE submission of the CAIRN function %s (cairn export --harness gpumode).\n", h->fn);
            py_common(a, f, h, src);
            fprintf(f, "\n\ndef custom_kernel(data):\n"
                       "    \"\"\"data is what the problem's generate_input returns, in the order harness.toml lists\n"
                       "    its arguments; the result is the output the binding wrote or allocated.\"\"\"\n"
                       "    args = data if isinstance(data, (tuple, list)) else (data,)\n"
                       "    return _cairn.%s(*args)\n", h->fn);
        } else {
            name = "model_new.py";
            fprintf(f, "# A KernelBench ModelNew of the CAIRN function %s (cairn export --harness kernelbench).\n", h->fn);
            py_common(a, f, h, src);
            fprintf(f, "\n\nclass ModelNew(torch.nn.Module):\n"
                       "    \"\"\"Takes the reference Model's init inputs (and needs none of them); forward takes its\n"
                       "    inputs in the order harness.toml lists them and returns the results.\"\"\"\n\n"
                       "    def __init__(self, *args, **kwargs):\n"
                       "        super().__init__()\n\n"
                       "    def forward(self, *inputs):\n"
                       "        return _cairn.%s(*inputs)\n", h->fn);
        }
        fclose(f);
    }
    FILE *f = fopen(arena_printf(a, "%s/%s", dir, name), "wb");
    bool ok = f && fwrite(text, 1, n, f) == n;
    ok = f && fclose(f) == 0 && ok;
    src->submission_sha = hx_sha256(a, text, n);
    src->submission_bytes = n;
    if (src->format != HX_SOL)
        free(text);
    return ok ? name : NULL;
}
