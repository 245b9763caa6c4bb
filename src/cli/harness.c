/*
 * harness.c: harness.toml, read and held to a function's signature.
 *
 *   [axes]        NAME = 4096                 a fixed axis
 *   [extents]     n = "batch * hidden"        an integer parameter no argument feeds
 *   [[argument]]  name, parameter, dtype, shape, output
 *   [[result]]    name, parameter, dtype, shape   (allocated by the adapter)
 *   [benchmark]   definition, leaderboard, gpu, problem, ranking_by
 *
 * The signature comes from the library receipt's exports (cairn build
 * --header), so the mapping is judged against exactly what the C entry
 * takes. Every refusal points at the line of the table or key at fault and
 * names the witness: the parameter, the two lines that feed it, the dtype
 * and the element type.
 */
#include "harness.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *hx_format_name(HxFormat f)
{
    return f == HX_SOL ? "sol-execbench" : f == HX_GPUMODE ? "gpumode" : "kernelbench";
}

bool hx_format_parse(const char *s, HxFormat *f)
{
    if (!strcmp(s, "sol-execbench"))
        *f = HX_SOL;
    else if (!strcmp(s, "gpumode"))
        *f = HX_GPUMODE;
    else if (!strcmp(s, "kernelbench"))
        *f = HX_KERNELBENCH;
    else
        return false;
    return true;
}

char *hx_read_file(Arena *a, const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct stat st;
    if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || st.st_size > (256 << 20)) {
        fclose(f);
        errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        return NULL;
    }
    char *buf = arena_alloc(a, (size_t)st.st_size + 1);
    size_t n = fread(buf, 1, (size_t)st.st_size, f);
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

const char *hx_sha256(Arena *a, const char *s, size_t n)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (!EVP_Digest(s, n, md, &mdlen, EVP_sha256(), NULL))
        die("EVP_Digest failed");
    char *hex = arena_alloc(a, 2 * mdlen + 1);
    for (unsigned i = 0; i < mdlen; i++)
        sprintf(hex + 2 * i, "%02x", md[i]);
    return hex;
}

/* ------------------------------------------------------------------ dtypes */

static const struct { const char *names[4]; const char *elem; } dtypes[] = {
    {{"bfloat16", "bf16"}, "bf16"},           {{"float16", "f16", "half"}, "f16"},
    {{"float32", "f32", "float"}, "f32"},     {{"float64", "f64", "double"}, "f64"},
    {{"int8", "i8"}, "i8"},                   {{"int16", "i16"}, "i16"},
    {{"int32", "i32"}, "i32"},                {{"int64", "i64"}, "i64"},
    {{"uint8", "u8"}, "u8"},                  {{"uint16", "u16"}, "u16"},
    {{"uint32", "u32"}, "u32"},               {{"uint64", "u64"}, "u64"},
    {{"bool"}, "bool"},                       {{"float8_e4m3fn", "f8e4m3"}, "f8e4m3"},
    {{"float8_e5m2", "f8e5m2"}, "f8e5m2"},
};
/* Formats the benchmarks use that CAIRN has no type for: refused by name. */
static const char *const foreign_dtypes[] = {"float4_e2m1fn_x2", "float4_e2m1", "float8_e8m0fnu", "float8_e4m3fnuz",
                                             "float8_e5m2fnuz", "complex64", "complex128", "bits8", NULL};

const char *hx_dtype_elem(const char *dtype, bool *known)
{
    *known = true;
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
        for (int j = 0; j < 4 && dtypes[i].names[j]; j++)
            if (!strcmp(dtype, dtypes[i].names[j]))
                return dtypes[i].elem;
    for (int i = 0; foreign_dtypes[i]; i++)
        if (!strcmp(dtype, foreign_dtypes[i]))
            return NULL;
    *known = false;
    return NULL;
}

const char *hx_torch_dtype(const char *elem)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
        if (!strcmp(elem, dtypes[i].elem))
            return dtypes[i].names[0];
    return NULL;
}

static bool elem_is_float(const char *e)
{
    return e[0] == 'f' || !strcmp(e, "bf16");
}

static bool elem_is_int(const char *e)
{
    return e[0] == 'i' || e[0] == 'u';
}

/* ------------------------------------------------------------------ reading */

static bool usage_at(const Harness *h, int line, const char *help, const char *fmt, const char *what)
{
    fprintf(stderr, "%s:%d:1: error: ", h->path, line);
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n  help: %s\n", help);
    return false;
}

/* The array ["a", "b", 4] as strings; false when it is not one. */
static bool read_array(Arena *a, const char *v, const char ***out, int *n)
{
    size_t len = strlen(v);
    if (len < 2 || v[0] != '[' || v[len - 1] != ']')
        return false;
    Vec items = {0};
    const char *p = v + 1, *end = v + len - 1;
    for (;;) {
        while (p < end && isspace((unsigned char)*p))
            p++;
        if (p == end)
            break;
        const char *s = p;
        if (*p == '"') {
            s = ++p;
            while (p < end && *p != '"')
                p++;
            if (p == end)
                return false;
            vec_push(a, &items, arena_strndup(a, s, (size_t)(p - s)));
            p++;
        } else {
            while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
                p++;
            if (p == s)
                return false;
            vec_push(a, &items, arena_strndup(a, s, (size_t)(p - s)));
        }
        while (p < end && isspace((unsigned char)*p))
            p++;
        if (p < end && *p != ',')
            return false;
        if (p < end)
            p++;
    }
    *out = (const char **)items.v;
    *n = items.n;
    return true;
}

static bool is_ident(const char *s)
{
    if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return false;
    return true;
}

static bool is_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

/* The value of an [[argument]] or [[result]] key. */
static bool arg_key(Arena *a, Harness *h, HxArg *g, const TomlEntry *e)
{
    const char *k = e->key, *v = e->value;
    if (!strcmp(k, "name"))
        g->name = v;
    else if (!strcmp(k, "parameter"))
        g->parameter = v;
    else if (!strcmp(k, "dtype"))
        g->dtype = v, g->dtype_line = e->line;
    else if (!strcmp(k, "shape")) {
        if (!read_array(a, v, &g->shape, &g->nshape))
            return usage_at(h, e->line, "write the shape as a list of axis names and sizes: [\"batch\", \"hidden\", 4]",
                            "shape = %s is not a list", v);
        if (!g->shape)
            g->shape = arena_alloc(a, sizeof *g->shape);   /* [] is a 0-d tensor, not a number */
        for (int i = 0; i < g->nshape; i++)
            if (!is_ident(g->shape[i]) && !is_digits(g->shape[i]))
                return usage_at(h, e->line, "a shape entry is an axis name or a size",
                                "shape entry \"%s\" is neither an axis name nor a size", g->shape[i]);
    } else if (!strcmp(k, "output") && !g->result) {
        if (strcmp(v, "true") && strcmp(v, "false"))
            return usage_at(h, e->line, "write output = true or output = false", "output = %s is not a boolean", v);
        g->output = !strcmp(v, "true");
    } else {
        return usage_at(h, e->line, g->result ? "a [[result]] takes name, parameter, dtype and shape"
                                              : "an [[argument]] takes name, parameter, dtype, shape and output",
                        "unknown key %s", k);
    }
    return true;
}

static bool benchmark_key(Harness *h, const TomlEntry *e)
{
    const char *k = e->key;
    if (!strcmp(k, "definition"))
        h->definition = e->value;
    else if (!strcmp(k, "leaderboard"))
        h->leaderboard = e->value;
    else if (!strcmp(k, "gpu"))
        h->gpu = e->value, h->gpu_line = e->line;
    else if (!strcmp(k, "problem"))
        h->problem = e->value;
    else if (!strcmp(k, "ranking_by")) {
        if (strcmp(e->value, "last") && strcmp(e->value, "mean") && strcmp(e->value, "geom"))
            return usage_at(h, e->line, "GPU MODE ranks by last, mean or geom", "ranking_by = \"%s\"", e->value);
        h->ranking_by = e->value;
    } else
        return usage_at(h, e->line, "[benchmark] takes definition, leaderboard, gpu, problem and ranking_by",
                        "unknown key %s in [benchmark]", k);
    return true;
}

/* The header an entry belongs to: the last one above its line. */
static const TomlEntry *header_of(const Toml *t, int line)
{
    const TomlEntry *h = NULL;
    for (int i = 0; i < t->tables.n; i++) {
        const TomlEntry *e = t->tables.v[i];
        if (e->line < line)
            h = e;
    }
    return h;
}

/* *beyond: 1 for a form outside + - * / (a call, %, **, //), 2 for an integer past 64 bits. */
static HxExpr *parse_expr(Arena *a, const char **p, int *beyond);

static void skip_ws(const char **p)
{
    while (isspace((unsigned char)**p))
        (*p)++;
}

static HxExpr *parse_atom(Arena *a, const char **p, int *beyond)
{
    skip_ws(p);
    HxExpr *e = arena_alloc(a, sizeof *e);
    if (**p == '(') {
        (*p)++;
        e = parse_expr(a, p, beyond);
        skip_ws(p);
        if (!e || **p != ')')
            return NULL;
        (*p)++;
        return e;
    }
    const char *s = *p;
    if (isdigit((unsigned char)**p)) {
        errno = 0;
        e->value = strtoll(s, (char **)p, 10);
        if (errno)
            *beyond = 2;
        return e;
    }
    while (isalnum((unsigned char)**p) || **p == '_')
        (*p)++;
    if (*p == s)
        return NULL;
    e->axis = arena_strndup(a, s, (size_t)(*p - s));
    if (isdigit((unsigned char)*s))
        return NULL;
    skip_ws(p);
    if (**p == '(')
        *beyond = 1;   /* a call */
    return e;
}

static HxExpr *parse_term(Arena *a, const char **p, int *beyond)
{
    HxExpr *l = parse_atom(a, p, beyond);
    for (;;) {
        skip_ws(p);
        if (!l || (**p != '*' && **p != '/'))
            return l;
        if ((*p)[1] == '*' || (*p)[1] == '/')   /* ** and // are Python's, not + - * / */
            *beyond = 1;
        HxExpr *e = arena_alloc(a, sizeof *e);
        e->op = *(*p)++;
        e->l = l;
        e->r = parse_atom(a, p, beyond);
        if (!e->r)
            return NULL;
        l = e;
    }
}

static HxExpr *parse_expr(Arena *a, const char **p, int *beyond)
{
    HxExpr *l = parse_term(a, p, beyond);
    for (;;) {
        skip_ws(p);
        if (!l || (**p != '+' && **p != '-'))
            return l;
        HxExpr *e = arena_alloc(a, sizeof *e);
        e->op = *(*p)++;
        e->l = l;
        e->r = parse_term(a, p, beyond);
        if (!e->r)
            return NULL;
        l = e;
    }
}

bool hx_read(Arena *a, const char *path, Harness *h)
{
    memset(h, 0, sizeof *h);
    h->path = path;
    size_t len;
    char *text = hx_read_file(a, path, &len);
    if (!text) {
        fprintf(stderr, "cairn: cannot read the mapping %s: %s\n", path, strerror(errno));
        return false;
    }
    h->src = (Source){.name = path, .text = text, .len = len};
    Toml t;
    char err[512];
    if (!toml_read(a, path, &t, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return false;
    }
    static const char *const tables[] = {"axes", "extents", "argument", "result", "benchmark", NULL};
    for (int i = 0; i < t.tables.n; i++) {
        const TomlEntry *e = t.tables.v[i];
        bool ok = false;
        for (int j = 0; tables[j]; j++)
            ok |= !strcmp(e->table, tables[j]);
        if (!ok)
            return usage_at(h, e->line, "a mapping has [axes], [extents], [[argument]], [[result]] and [benchmark]",
                            "unknown table [%s]", e->table);
        if (!strcmp(e->table, "argument") || !strcmp(e->table, "result")) {
            HxArg *g = arena_alloc(a, sizeof *g);
            g->result = !strcmp(e->table, "result");
            g->line = e->line;
            g->param = -1;
            vec_push(a, &h->args, g);
        }
        if (!strcmp(e->table, "benchmark"))
            h->benchmark_line = e->line;
    }
    for (int i = 0; i < t.entries.n; i++) {
        const TomlEntry *e = t.entries.v[i];
        const TomlEntry *hd = header_of(&t, e->line);
        if (!hd)
            return usage_at(h, e->line, "put it under a table", "the key %s stands before any table", e->key);
        if (!strcmp(e->table, "axes")) {
            HxAxis *x = arena_alloc(a, sizeof *x);
            char *end;
            errno = 0;
            x->value = strtoll(e->value, &end, 10);
            if (*end || errno || x->value < 0 || !is_ident(e->key))
                return usage_at(h, e->line, "a fixed axis is NAME = a size, such as hidden_size = 4096",
                                "[axes] %s is not a size", e->key);
            x->name = e->key;
            x->line = e->line;
            vec_push(a, &h->axes, x);
        } else if (!strcmp(e->table, "extents")) {
            HxExtent *x = arena_alloc(a, sizeof *x);
            x->param = e->key;
            x->text = e->value;
            x->line = e->line;
            vec_push(a, &h->extents, x);
        } else if (!strcmp(e->table, "benchmark")) {
            if (!benchmark_key(h, e))
                return false;
        } else {
            HxArg *g = NULL;
            for (int j = 0; j < h->args.n; j++)
                if (((HxArg *)h->args.v[j])->line == hd->line)
                    g = h->args.v[j];
            if (!arg_key(a, h, g, e))
                return false;
        }
    }
    for (int i = 0; i < h->args.n; i++) {
        HxArg *g = h->args.v[i];
        const char *what = !g->name ? "name" : !g->parameter ? "parameter" : !g->dtype ? "dtype" : NULL;
        if (what)
            return usage_at(h, g->line, "each [[argument]] and [[result]] names the benchmark's name, the parameter "
                            "it feeds and its dtype", "this table has no %s", what);
    }
    return true;
}

/* ------------------------------------------------------------------ binding */

/* A span on line `line` at the first occurrence of `word` there (col 1 and
 * the whole line when it is not found). */
static Span span_at(const Harness *h, int line, const char *word)
{
    const char *p = h->src.text;
    for (int l = 1; l < line && *p; l++) {
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
    }
    const char *eol = strchr(p, '\n');
    size_t n = eol ? (size_t)(eol - p) : strlen(p);
    Span s = {&h->src, line, 1, n ? (int)n : 1};
    if (word) {
        for (const char *q = p; q + strlen(word) <= p + n; q++)
            if (!strncmp(q, word, strlen(word))) {
                s.col = (int)(q - p) + 1;
                s.len = (int)strlen(word);
                break;
            }
    }
    return s;
}

static const char *str_of(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool read_params(Arena *a, Harness *h, const cJSON *fn)
{
    const cJSON *ps = cJSON_GetObjectItemCaseSensitive(fn, "params");
    h->nparams = cJSON_GetArraySize(ps);
    h->params = arena_alloc(a, sizeof *h->params * (size_t)(h->nparams + 1));
    h->param_extent = arena_alloc(a, sizeof *h->param_extent * (size_t)(h->nparams + 1));
    for (int i = 0; i < h->nparams; i++) {
        const cJSON *p = cJSON_GetArrayItem(ps, i);
        HxParam *q = &h->params[i];
        q->name = str_of(p, "name");
        q->type = str_of(p, "type");
        q->kind = str_of(p, "kind");
        q->c = str_of(p, "c");
        q->access = str_of(p, "access");
        q->elem = !strcmp(q->kind, "scalar") ? q->type : str_of(p, "elem");
        const char *pl = str_of(p, "placement");
        q->device = pl && !strcmp(pl, "device");
        const cJSON *ext = cJSON_GetObjectItemCaseSensitive(p, "extent");
        q->extent = ext && !cJSON_IsNull(ext) ? ext : NULL;
        h->param_extent[i] = -1;
        if (!q->name || !q->type || !q->kind || !q->elem)
            return false;
    }
    return true;
}

static int param_index(const Harness *h, const char *name)
{
    for (int i = 0; i < h->nparams; i++)
        if (!strcmp(h->params[i].name, name))
            return i;
    return -1;
}

static const char *param_list(Arena *a, const Harness *h)
{
    const char *s = "";
    for (int i = 0; i < h->nparams; i++)
        s = arena_printf(a, "%s%s%s", s, i ? ", " : "", h->params[i].name);
    return *s ? s : "none";
}

static bool shape_names(const Harness *h, const char *axis)
{
    for (int i = 0; i < h->args.n; i++) {
        const HxArg *g = h->args.v[i];
        for (int j = 0; j < g->nshape; j++)
            if (!strcmp(g->shape[j], axis))
                return true;
    }
    return false;
}

static const HxAxis *fixed_axis(const Harness *h, const char *name)
{
    for (int i = 0; i < h->axes.n; i++)
        if (!strcmp(((HxAxis *)h->axes.v[i])->name, name))
            return h->axes.v[i];
    return NULL;
}

static bool expr_uses(const HxExpr *e, const char *axis)
{
    return e && ((e->axis && !strcmp(e->axis, axis)) || expr_uses(e->l, axis) || expr_uses(e->r, axis));
}

/* Every axis of an extent is fixed or named by a shape. */
static const char *unnamed_axis(const Harness *h, const HxExpr *e)
{
    if (!e)
        return NULL;
    if (e->axis)
        return fixed_axis(h, e->axis) || shape_names(h, e->axis) ? NULL : e->axis;
    const char *l = unnamed_axis(h, e->l);
    return l ? l : unnamed_axis(h, e->r);
}

static bool bind_extents(Arena *a, Harness *h, Sink *s)
{
    bool ok = true;
    for (int i = 0; i < h->extents.n; i++) {
        HxExtent *x = h->extents.v[i];
        int k = param_index(h, x->param);
        Span at = span_at(h, x->line, x->param);
        if (k < 0) {
            diag_error(s, at, E_HARNESS_MAPPING, arena_printf(a, "the parameters of %s are %s", h->fn, param_list(a, h)),
                       "[extents] gives %s, which %s has no parameter of that name", x->param, h->fn);
            ok = false;
            continue;
        }
        const HxParam *p = &h->params[k];
        if (strcmp(p->kind, "scalar") || !elem_is_int(p->elem)) {
            diag_error(s, at, E_HARNESS_MAPPING, "an [extents] entry feeds an integer parameter",
                       "[extents] gives %s, but %s is %s, not an integer", x->param, x->param, p->type);
            ok = false;
            continue;
        }
        if (h->param_extent[k] >= 0) {
            diag_error(s, at, E_HARNESS_MAPPING, "give each parameter one extent",
                       "parameter %s is fed twice: by [extents] here and again", x->param);
            ok = false;
            continue;
        }
        h->param_extent[k] = i;
        int beyond = 0;
        const char *p0 = x->text;
        x->expr = parse_expr(a, &p0, &beyond);
        skip_ws(&p0);
        if (!x->expr || beyond || *p0) {
            diag_error(s, span_at(h, x->line, x->text), E_HARNESS_MAPPING,
                       "an extent is + - * / over axes and integers, with parentheses",
                       beyond == 2 ? "the extent of %s, \"%s\", holds an integer past 64 bits"
                                   : "the extent of %s, \"%s\", is beyond + - * / over axes", x->param, x->text);
            ok = false;
            continue;
        }
        const char *un = unnamed_axis(h, x->expr);
        if (un) {
            diag_error(s, span_at(h, x->line, un), E_HARNESS_MAPPING,
                       arena_printf(a, "name %s in an argument's shape, or fix it under [axes]", un),
                       "the extent of %s uses the axis %s, which no shape names and [axes] does not fix", x->param, un);
            ok = false;
        }
    }
    for (int i = 0; i < h->axes.n; i++) {
        const HxAxis *x = h->axes.v[i];
        bool used = shape_names(h, x->name);
        for (int j = 0; j < h->extents.n && !used; j++)
            used = expr_uses(((HxExtent *)h->extents.v[j])->expr, x->name);
        if (!used) {
            diag_error(s, span_at(h, x->line, x->name), E_HARNESS_MAPPING, "remove it, or name it in a shape",
                       "the axis %s is fixed, but no shape and no extent names it", x->name);
            ok = false;
        }
    }
    return ok;
}

/* An argument's dtype against its parameter's type (E-HARNESS-DTYPE). */
static bool bind_dtype(Arena *a, Harness *h, Sink *s, HxArg *g, const HxParam *p)
{
    bool known;
    g->elem = hx_dtype_elem(g->dtype, &known);
    Span at = span_at(h, g->dtype_line, g->dtype);
    if (!g->elem) {
        diag_error(s, at, E_HARNESS_DTYPE, known ? "CAIRN computes in the types docs/language.md lists; this "
                   "benchmark's format has no CAIRN type, so a kernel over it is written in foreign CUDA"
                   : "write a benchmark dtype (bfloat16, float32, int64, ...) or a CAIRN type (bf16, f32, i64, ...)",
                   known ? "%s is %s, a format CAIRN has no type for" : "%s has the unknown dtype %s", g->name, g->dtype);
        return false;
    }
    if (!strcmp(p->kind, "scalar") && elem_is_float(g->elem) && !elem_is_float(p->elem)) {
        diag_error(s, at, E_HARNESS_DTYPE, "an integer parameter takes an integer: give it an integer dtype, or "
                   "make the parameter a float", "%s is %s, a float, feeding the integer parameter %s (%s)",
                   g->name, g->dtype, p->name, p->type);
        return false;
    }
    bool same = !strcmp(g->elem, p->elem) ||
                (!strcmp(p->kind, "scalar") && elem_is_int(g->elem) && (elem_is_int(p->elem) || elem_is_float(p->elem)));
    if (!same) {
        diag_error(s, at, E_HARNESS_DTYPE, arena_printf(a, "give it dtype %s, or change the parameter's element type",
                                                        hx_torch_dtype(p->elem) ? hx_torch_dtype(p->elem) : p->elem),
                   "%s is %s (CAIRN %s), but parameter %s is %s", g->name, g->dtype, g->elem, p->name, p->type);
        return false;
    }
    return true;
}

static bool bind_args(Arena *a, Harness *h, Sink *s, HxFormat f)
{
    bool ok = true;
    int *fed = arena_alloc(a, sizeof *fed * (size_t)(h->nparams + 1));   /* the line that feeds each, or 0 */
    for (int i = 0; i < h->args.n; i++) {
        HxArg *g = h->args.v[i];
        Span at = span_at(h, g->line, NULL);
        int k = param_index(h, g->parameter);
        if (k < 0) {
            diag_error(s, at, E_HARNESS_MAPPING, arena_printf(a, "the parameters of %s are %s", h->fn, param_list(a, h)),
                       "%s feeds the parameter %s, which %s does not have", g->name, g->parameter, h->fn);
            ok = false;
            continue;
        }
        const HxParam *p = &h->params[k];
        g->param = k;
        if (fed[k] || h->param_extent[k] >= 0) {
            diag_error(s, at, E_HARNESS_MAPPING, "feed each parameter from one argument, result or extent",
                       "parameter %s is fed twice: by %s here and by %s (line %d)", p->name, g->name,
                       fed[k] ? "an argument" : "[extents]",
                       fed[k] ? fed[k] : ((HxExtent *)h->extents.v[h->param_extent[k]])->line);
            ok = false;
            continue;
        }
        fed[k] = g->line;
        if (!strcmp(p->kind, "ref")) {
            diag_error(s, at, E_HARNESS_MAPPING, "make it a one-element view, rw<T>[1]",
                       "parameter %s is %s, a reference, which no benchmark argument can feed", p->name, p->type);
            ok = false;
            continue;
        }
        bool view = !strcmp(p->kind, "view");
        if (view != (g->shape != NULL)) {
            diag_error(s, at, E_HARNESS_MAPPING, view ? "give the argument a shape: a tensor feeds a view"
                                                      : "drop its shape: a number feeds a scalar",
                       view ? "%s is a number (no shape) feeding the view %s (%s)"
                            : "%s is a tensor (it has a shape) feeding the scalar %s (%s)", g->name, p->name, p->type);
            ok = false;
            continue;
        }
        if (!bind_dtype(a, h, s, g, p)) {
            ok = false;
            continue;
        }
        bool written = view && !strcmp(p->access, "rw");
        if (g->result && f == HX_SOL) {
            diag_error(s, at, E_HARNESS_FORMAT, "SOL-ExecBench allocates every output and passes it after the "
                       "inputs: make it an [[argument]] with output = true",
                       "%s is a [[result]], which SOL-ExecBench does not take", g->name);
            ok = false;
        } else if (g->output && f == HX_KERNELBENCH) {
            diag_error(s, at, E_HARNESS_FORMAT, "KernelBench's forward gets only inputs: make it a [[result]], "
                       "which the adapter allocates and returns",
                       "%s is a destination (output = true), which KernelBench does not pass", g->name);
            ok = false;
        } else if ((g->output || g->result) && !written) {
            diag_error(s, at, E_HARNESS_MAPPING, "an output feeds an rw view the function writes",
                       "%s is an output, but %s never writes its parameter %s (%s)", g->name, h->fn, p->name, p->type);
            ok = false;
        } else if (!g->output && !g->result && written) {
            diag_error(s, at, E_HARNESS_MAPPING, "mark it output = true if the benchmark allocated it for the "
                       "result, or make the parameter ro",
                       "%s is an input, but %s writes its parameter %s (%s)", g->name, h->fn, p->name, p->type);
            ok = false;
        }
    }
    for (int k = 0; k < h->nparams; k++)
        if (!fed[k] && h->param_extent[k] < 0 && ok) {
            const HxParam *p = &h->params[k];
            bool integer = !strcmp(p->kind, "scalar") && elem_is_int(p->elem);
            diag_error(s, span_at(h, 1, NULL), E_HARNESS_MAPPING,
                       integer ? arena_printf(a, "give it under [extents], such as %s = \"batch_size * hidden_size\"", p->name)
                               : "add an [[argument]] that feeds it",
                       "parameter %s (%s) of %s is fed by nothing", p->name, p->type, h->fn);
            ok = false;
        }
    return ok;
}

/* The compute capability a GPU name has, or 0 for a name not known. */
static int gpu_sm(const char *gpu)
{
    static const struct { const char *name; int sm; } gpus[] = {
        {"T4", 75}, {"A100", 80}, {"A10G", 86}, {"L4", 89}, {"H100", 90}, {"H200", 90}, {"H20", 90},
        {"B200", 100}, {"B200_Nebius", 100}, {"GB200", 100}, {"B300", 103},
    };
    for (size_t i = 0; i < sizeof gpus / sizeof *gpus; i++)
        if (!strcmp(gpu, gpus[i].name))
            return gpus[i].sm;
    return 0;
}

/* Whether code built for `target` (sm_90a, sm_80) loads on a GPU of
 * compute capability sm: an arch-specific target only on its own, a plain
 * one on its major with a minor at least its own (no PTX is embedded). */
static bool target_loads(const char *target, int sm)
{
    int t = atoi(target + 3);
    bool specific = target[strlen(target) - 1] == 'a' || target[strlen(target) - 1] == 'f';
    return specific ? t == sm : t / 10 == sm / 10 && t % 10 <= sm % 10;
}

bool hx_bind(Arena *a, Harness *h, Sink *s, const cJSON *exports, const char *fn, HxFormat f, const char *target)
{
    h->library = str_of(exports, "library");
    h->device_lib = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(exports, "device"));
    const cJSON *fns = cJSON_GetObjectItemCaseSensitive(exports, "functions"), *found = NULL;
    for (int i = 0; i < cJSON_GetArraySize(fns); i++)
        if (!strcmp(str_of(cJSON_GetArrayItem(fns, i), "name"), fn))
            found = cJSON_GetArrayItem(fns, i);
    Span top = span_at(h, 1, NULL);
    if (!found) {
        const cJSON *un = cJSON_GetObjectItemCaseSensitive(exports, "unexported");
        for (int i = 0; i < cJSON_GetArraySize(un); i++) {
            const cJSON *u = cJSON_GetArrayItem(un, i);
            if (!strcmp(str_of(u, "name"), fn)) {
                diag_error(s, top, E_HARNESS_SYMBOL, "export a function whose parameters are scalars, rw<T> and views "
                           "(a wrapper that makes the owner inside, say)",
                           "%s has no C entry: %s (line %d of the source)", fn, str_of(u, "reason"),
                           cJSON_GetObjectItemCaseSensitive(u, "line")->valueint);
                return false;
            }
        }
        const char *names = "";
        for (int i = 0; i < cJSON_GetArraySize(fns); i++)
            names = arena_printf(a, "%s%s%s", names, i ? ", " : "", str_of(cJSON_GetArrayItem(fns, i), "name"));
        diag_error(s, top, E_HARNESS_SYMBOL, arena_printf(a, "the library's C entries are: %s", *names ? names : "none"),
                   "the library %s has no function %s", h->library, fn);
        return false;
    }
    h->fn = fn;
    h->fn_json = found;
    h->cf = str_of(found, "cf");
    h->cq = str_of(found, "cq");
    h->no_cq = str_of(found, "no_cq");
    h->returns = str_of(found, "returns");
    if (!read_params(a, h, found))
        die("the receipt's exports lack a parameter field");
    if (strcmp(h->returns, "void")) {
        diag_error(s, top, E_HARNESS_FORMAT, "write the result into an rw view that an output or result feeds",
                   "%s returns %s, and a benchmark takes no value a kernel returns", fn, h->returns);
        return false;
    }
    bool ok = bind_extents(a, h, s);
    ok = bind_args(a, h, s, f) && ok;
    if (f == HX_SOL && !h->definition) {
        diag_error(s, span_at(h, h->benchmark_line ? h->benchmark_line : 1, NULL), E_HARNESS_FORMAT,
                   "name the problem: [benchmark] definition = \"rmsnorm_h4096\" (its definition.json's name)",
                   "a SOL-ExecBench solution names its definition, and this mapping names none");
        ok = false;
    }
    const char *gpu = h->gpu ? h->gpu : f == HX_SOL ? "B200" : NULL;
    if (ok && gpu && target && h->device_lib && strcmp(gpu, "LOCAL")) {
        int sm = gpu_sm(gpu);
        Span at = h->gpu_line ? span_at(h, h->gpu_line, gpu) : span_at(h, h->benchmark_line ? h->benchmark_line : 1, NULL);
        if (!sm) {
            diag_error(s, at, E_TARGET_MISMATCH, "name a GPU the benchmark runs on: T4, A100, L4, H100, H200, B200",
                       "the mapping names the GPU %s, whose compute capability cairn does not know", gpu);
            ok = false;
        } else if (!target_loads(target, sm)) {
            diag_error(s, at, E_TARGET_MISMATCH,
                       arena_printf(a, "build for sm_%d%s (device_target in cairn.toml, or --device-target)", sm,
                                    sm >= 90 ? "a" : ""),
                       "the device target %s does not load on the %s (sm_%d)%s", target, gpu, sm,
                       h->gpu ? "" : ", the GPU SOL-ExecBench runs on; gpu = \"LOCAL\" under [benchmark] runs it on "
                                     "the machine's own");
            ok = false;
        }
    }
    return ok;
}
