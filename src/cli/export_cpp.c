/*
 * export_cpp.c: the PyTorch binding a benchmark submission calls, as C++
 * written from the mapping (harness.toml) and the function's signature.
 *
 * The entry takes the benchmark's arguments in the benchmark's order. Before
 * any pointer crosses it checks each tensor's dtype, device, contiguity,
 * dimensions and sizes (a fixed axis against its value, a variable one
 * against the first tensor that names it), computes every integer parameter
 * no argument feeds from its [extents] expression with checked arithmetic,
 * checks each view's element count against the extent its type names, and
 * refuses a written tensor that overlaps another and a number that does not
 * fit its parameter. A refusal is a Python TypeError or ValueError naming the
 * argument. Device work is queued on torch's current stream through cq_; a
 * function without one (E-ENQUEUE) runs through cf_ with that stream bound.
 */
#include "harness.h"

#include <string.h>

/* torch's ScalarType for a CAIRN element. */
static const char *at_type(const char *elem)
{
    static const char *const map[][2] = {
        {"bf16", "at::kBFloat16"}, {"f16", "at::kHalf"}, {"f32", "at::kFloat"}, {"f64", "at::kDouble"},
        {"i8", "at::kChar"}, {"i16", "at::kShort"}, {"i32", "at::kInt"}, {"i64", "at::kLong"},
        {"u8", "at::kByte"}, {"u16", "at::kUInt16"}, {"u32", "at::kUInt32"}, {"u64", "at::kUInt64"},
        {"bool", "at::kBool"}, {"f8e4m3", "at::kFloat8_e4m3fn"}, {"f8e5m2", "at::kFloat8_e5m2"},
    };
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (!strcmp(elem, map[i][0]))
            return map[i][1];
    return NULL;
}

/* The range of an integer scalar type, as C++ literals. */
static void int_range(const char *t, const char **lo, const char **hi)
{
    static const char *const r[][3] = {
        {"i8", "-128LL", "127LL"}, {"i16", "-32768LL", "32767LL"}, {"i32", "-2147483648LL", "2147483647LL"},
        {"i64", "INT64_MIN", "INT64_MAX"}, {"isize", "INT64_MIN", "INT64_MAX"}, {"u8", "0LL", "255LL"},
        {"u16", "0LL", "65535LL"}, {"u32", "0LL", "4294967295LL"}, {"u64", "0LL", "INT64_MAX"},
        {"usize", "0LL", "INT64_MAX"},
    };
    *lo = "INT64_MIN", *hi = "INT64_MAX";
    for (size_t i = 0; i < sizeof r / sizeof *r; i++)
        if (!strcmp(t, r[i][0]))
            *lo = r[i][1], *hi = r[i][2];
}

static void cpp_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if (*s == '\n')
            fputs("\\n", f);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

/* An [extents] expression over the axes, checked: cnb_add(a, b, what). */
static void extent_expr(FILE *f, const HxExpr *e, const char *what)
{
    if (!e->op) {
        if (e->axis)
            fprintf(f, "ax_%s", e->axis);
        else
            fprintf(f, "(int64_t)%lldLL", e->value);
        return;
    }
    const char *fn = e->op == '+' ? "cnb_add" : e->op == '-' ? "cnb_sub" : e->op == '*' ? "cnb_mul" : "cnb_div";
    fprintf(f, "%s(", fn);
    extent_expr(f, e->l, what);
    fputs(", ", f);
    extent_expr(f, e->r, what);
    fprintf(f, ", \"%s\")", what);
}

/* The receipt's extent tree over the parameters (p_NAME), checked. */
static void receipt_expr(FILE *f, const cJSON *t, const char *what)
{
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(t, "int")))
        fprintf(f, "(int64_t)%.0fLL", v->valuedouble);
    else if ((v = cJSON_GetObjectItemCaseSensitive(t, "param")))
        fprintf(f, "p_%s", v->valuestring);
    else {
        const char *op = cJSON_GetObjectItemCaseSensitive(t, "op")->valuestring;
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(t, "args");
        const char *fn = *op == '+' ? "cnb_add" : *op == '-' ? "cnb_sub" : *op == '*' ? "cnb_mul" : *op == '/' ? "cnb_div"
                                                                                                             : "cnb_mod";
        fprintf(f, "%s(", fn);
        receipt_expr(f, cJSON_GetArrayItem(args, 0), what);
        fputs(", ", f);
        receipt_expr(f, cJSON_GetArrayItem(args, 1), what);
        fprintf(f, ", \"%s\")", what);
    }
}

/* The binding's helpers are cnb_*, never the runtime's cn_*: for a host library, load_inline
 * joins the emitted code and the binding into one translation unit. */
static const char prelude[] =
    "#include <torch/extension.h>\n"
    "#include <cstdint>\n"
    "#include <string>\n"
    "%s"
    "\n"
    "namespace {\n"
    "[[noreturn]] void cnb_type_error(const std::string &m) { throw pybind11::type_error(m); }\n"
    "[[noreturn]] void cnb_value_error(const std::string &m) { throw pybind11::value_error(m); }\n"
    "\n"
    "/* Extents in int64 arithmetic that refuses to wrap, as CAIRN's own does. */\n"
    "int64_t cnb_add(int64_t a, int64_t b, const char *w) { int64_t r; if (__builtin_add_overflow(a, b, &r)) "
    "cnb_value_error(std::string(\"%s: the extent of \") + w + \" overflows\"); return r; }\n"
    "int64_t cnb_sub(int64_t a, int64_t b, const char *w) { int64_t r; if (__builtin_sub_overflow(a, b, &r)) "
    "cnb_value_error(std::string(\"%s: the extent of \") + w + \" overflows\"); return r; }\n"
    "int64_t cnb_mul(int64_t a, int64_t b, const char *w) { int64_t r; if (__builtin_mul_overflow(a, b, &r)) "
    "cnb_value_error(std::string(\"%s: the extent of \") + w + \" overflows\"); return r; }\n"
    "int64_t cnb_div(int64_t a, int64_t b, const char *w) { if (b == 0 || (a == INT64_MIN && b == -1)) "
    "cnb_value_error(std::string(\"%s: the extent of \") + w + \" divides by zero\"); return a / b; }\n"
    "int64_t cnb_mod(int64_t a, int64_t b, const char *w) { if (b == 0 || (a == INT64_MIN && b == -1)) "
    "cnb_value_error(std::string(\"%s: the extent of \") + w + \" divides by zero\"); return a %% b; }\n"
    "\n"
    "/* A tensor argument: its dtype, device, layout and number of dimensions. */\n"
    "void cnb_tensor(const torch::Tensor &t, const char *arg, const char *param, at::ScalarType want, "
    "const char *want_name, bool cuda, int64_t dims)\n"
    "{\n"
    "    std::string a = std::string(\"%s: argument \") + arg + \" (parameter \" + param + \")\";\n"
    "    if (t.scalar_type() != want)\n"
    "        cnb_type_error(a + \" must hold \" + want_name + \", not \" + std::string(c10::toString(t.scalar_type())));\n"
    "    if (t.is_cuda() != cuda)\n"
    "        cnb_type_error(a + \" must be a \" + (cuda ? \"CUDA\" : \"CPU\") + \" tensor, not on \" + t.device().str());\n"
    "    if (!t.is_contiguous())\n"
    "        cnb_value_error(a + \" must be contiguous (call .contiguous())\");\n"
    "    if (t.dim() != dims)\n"
    "        cnb_value_error(a + \" must have \" + std::to_string(dims) + \" dimensions, not \" + std::to_string(t.dim()));\n"
    "}\n"
    "\n"
    "/* Dimension d of an argument against an axis whose value is known. */\n"
    "void cnb_dim(const torch::Tensor &t, const char *arg, int64_t d, const char *axis, int64_t want)\n"
    "{\n"
    "    if (t.size(d) != want)\n"
    "        cnb_value_error(std::string(\"%s: argument \") + arg + \" has \" + std::to_string(t.size(d)) + \" in dimension \" +\n"
    "                       std::to_string(d) + \" (\" + axis + \"), where \" + std::to_string(want) + \" is required\");\n"
    "}\n"
    "\n"
    "/* A view's element count against the extent its type names. */\n"
    "void cnb_count(const torch::Tensor &t, const char *arg, const char *type, int64_t want)\n"
    "{\n"
    "    if (want < 0)\n"
    "        cnb_value_error(std::string(\"%s: the extent of \") + type + \" is \" + std::to_string(want) + \", negative\");\n"
    "    if (t.numel() != want)\n"
    "        cnb_value_error(std::string(\"%s: argument \") + arg + \" is \" + type + \": \" + std::to_string(want) +\n"
    "                       \" elements are required, \" + std::to_string(t.numel()) + \" given\");\n"
    "}\n"
    "\n"
    "/* A written tensor overlaps no other tensor argument. */\n"
    "void cnb_apart(const torch::Tensor &w, const char *warg, const torch::Tensor &o, const char *oarg)\n"
    "{\n"
    "    if (!w.numel() || !o.numel() || w.device() != o.device())\n"
    "        return;\n"
    "    auto a = (uintptr_t)w.data_ptr(), b = (uintptr_t)o.data_ptr();\n"
    "    if (a < b + o.nbytes() && b < a + w.nbytes())\n"
    "        cnb_value_error(std::string(\"%s: argument \") + warg + \" (written) overlaps argument \" + oarg);\n"
    "}\n"
    "\n"
    "/* An integer argument against its parameter's type. */\n"
    "int64_t cnb_int(int64_t v, const char *arg, const char *type, int64_t lo, int64_t hi)\n"
    "{\n"
    "    if (v < lo || v > hi)\n"
    "        cnb_value_error(std::string(\"%s: \") + arg + \" = \" + std::to_string(v) + \" does not fit \" + type);\n"
    "    return v;\n"
    "}\n"
    "}  // namespace\n\n";

/* The axes: fixed ones as constants, the others from the first tensor whose
 * shape names them, and every later dimension checked against them. */
static void write_axes(Arena *a, FILE *f, const Harness *h)
{
    Vec known = {0};
    for (int i = 0; i < h->axes.n; i++) {
        const HxAxis *x = h->axes.v[i];
        fprintf(f, "    const int64_t ax_%s = %lldLL;\n", x->name, x->value);
        vec_push(a, &known, (void *)x->name);
    }
    for (int i = 0; i < h->args.n; i++) {
        const HxArg *g = h->args.v[i];
        if (g->result || !g->shape)
            continue;
        for (int d = 0; d < g->nshape; d++) {
            const char *ax = g->shape[d];
            bool seen = false;
            for (int k = 0; k < known.n; k++)
                seen |= !strcmp(known.v[k], ax);
            if (ax[0] >= '0' && ax[0] <= '9')
                fprintf(f, "    cnb_dim(%s, \"%s\", %d, \"%s\", %sLL);\n", g->name, g->name, d, ax, ax);
            else if (seen)
                fprintf(f, "    cnb_dim(%s, \"%s\", %d, \"%s\", ax_%s);\n", g->name, g->name, d, ax, ax);
            else {
                fprintf(f, "    const int64_t ax_%s = %s.size(%d);\n", ax, g->name, d);
                vec_push(a, &known, (void *)ax);
            }
        }
    }
}

void hx_write_binding(Arena *a, FILE *f, const Harness *h, const char *header_text, HxFormat fmt)
{
    const char *fn = h->fn;
    fprintf(f, "/* The PyTorch binding of %s, written by cairn export from the mapping and the signature of %s\n"
               " * (harness.json says which). Every check is made before any pointer crosses; see docs/python.md. */\n",
            fn, fn);
    fprintf(f, prelude, h->device_lib ? "#include <ATen/cuda/CUDAContext.h>\n#include <c10/cuda/CUDAGuard.h>\n" : "",
            fn, fn, fn, fn, fn, fn, fn, fn, fn, fn, fn);
    fputs("/* The library's C entries (its header, as cairn build --header wrote it). */\n", f);
    fputs(header_text, f);
    fprintf(f, "\npybind11::object %s(", fn);
    bool first = true;
    for (int i = 0; i < h->args.n; i++) {
        const HxArg *g = h->args.v[i];
        if (g->result)
            continue;
        const HxParam *p = &h->params[g->param];
        const char *ct = g->shape ? "torch::Tensor" : !strcmp(p->elem, "bool") ? "bool"
                                                       : p->elem[0] == 'f' ? "double" : "int64_t";
        fprintf(f, "%s%s %s", first ? "" : ", ", ct, g->name);
        first = false;
    }
    fputs(")\n{\n", f);
    /* tensors */
    const HxArg *dev_arg = NULL;
    for (int i = 0; i < h->args.n; i++) {
        const HxArg *g = h->args.v[i];
        const HxParam *p = &h->params[g->param];
        if (!g->shape || g->result)
            continue;
        if (p->device && !dev_arg)
            dev_arg = g;
        fprintf(f, "    cnb_tensor(%s, \"%s\", \"%s\", %s, \"%s\", %s, %d);\n", g->name, g->name, p->name,
                at_type(p->elem), hx_torch_dtype(p->elem), p->device ? "true" : "false", g->nshape);
    }
    if (dev_arg) {
        fprintf(f, "    const at::cuda::CUDAGuard cnb_guard(%s.device());\n", dev_arg->name);
        for (int i = 0; i < h->args.n; i++) {
            const HxArg *g = h->args.v[i];
            if (g->shape && !g->result && h->params[g->param].device && g != dev_arg)
                fprintf(f, "    if (%s.device() != %s.device())\n        cnb_type_error(\"%s: argument %s is on \" + "
                           "%s.device().str() + \", argument %s on \" + %s.device().str() + \": one device is required\");\n",
                        g->name, dev_arg->name, fn, g->name, g->name, dev_arg->name, dev_arg->name);
        }
    }
    write_axes(a, f, h);
    /* results: allocated by the adapter, on the device of the first device tensor */
    for (int i = 0; i < h->args.n; i++) {
        const HxArg *g = h->args.v[i];
        if (!g->result)
            continue;
        const HxParam *p = &h->params[g->param];
        fprintf(f, "    torch::Tensor %s = torch::empty({", g->name);
        for (int d = 0; d < g->nshape; d++)
            fprintf(f, "%s%s%s", d ? ", " : "", g->shape[d][0] >= '0' && g->shape[d][0] <= '9' ? "" : "ax_", g->shape[d]);
        fprintf(f, "}, torch::dtype(%s).device(%s));\n", at_type(p->elem),
                p->device ? (dev_arg ? arena_printf(a, "%s.device()", dev_arg->name) : "torch::kCUDA") : "torch::kCPU");
    }
    /* scalar parameters, in the signature's order */
    for (int k = 0; k < h->nparams; k++) {
        const HxParam *p = &h->params[k];
        if (strcmp(p->kind, "scalar"))
            continue;
        const HxArg *g = NULL;
        for (int i = 0; i < h->args.n; i++)
            if (((HxArg *)h->args.v[i])->param == k)
                g = h->args.v[i];
        bool integer = p->elem[0] == 'i' || p->elem[0] == 'u';
        if (integer) {
            const char *lo, *hi;
            int_range(p->elem, &lo, &hi);
            fprintf(f, "    const int64_t p_%s = cnb_int(", p->name);
            if (g)
                fprintf(f, "%s", g->name);
            else
                extent_expr(f, ((HxExtent *)h->extents.v[h->param_extent[k]])->expr, p->name);
            fprintf(f, ", \"%s\", \"%s\", %s, %s);\n", g ? g->name : p->name, p->type, lo, hi);
        } else {
            fprintf(f, "    const auto p_%s = %s;\n", p->name, g->name);
        }
    }
    /* element counts, then overlaps */
    for (int i = 0; i < h->args.n; i++) {
        const HxArg *g = h->args.v[i];
        const HxParam *p = &h->params[g->param];
        if (!g->shape)
            continue;
        if (!p->extent) {
            fprintf(f, "    cnb_value_error(\"%s: parameter %s is %s, whose length the binding cannot compute\");\n", fn,
                    p->name, p->type);
            continue;
        }
        fprintf(f, "    cnb_count(%s, \"%s\", \"%s\", ", g->name, g->name, p->type);
        receipt_expr(f, p->extent, p->name);
        fputs(");\n", f);
    }
    for (int i = 0; i < h->args.n; i++) {
        const HxArg *g = h->args.v[i];
        if (!g->shape || g->result || strcmp(h->params[g->param].access, "rw"))
            continue;
        for (int j = 0; j < h->args.n; j++) {
            const HxArg *o = h->args.v[j];
            if (j != i && o->shape && !o->result)
                fprintf(f, "    cnb_apart(%s, \"%s\", %s, \"%s\");\n", g->name, g->name, o->name, o->name);
        }
    }
    /* the call */
    fputs("    {\n        pybind11::gil_scoped_release cnb_unlocked;\n", f);
    if (h->device_lib) {
        fputs("        void *cnb_stream = (void *)at::cuda::getCurrentCUDAStream().stream();\n", f);
        if (!h->cq)
            fprintf(f, "        cairn_%s_device_stream(cnb_stream);   /* E-ENQUEUE: %s */\n", h->library,
                    h->no_cq ? "cf_ waits; its work runs on torch's stream" : "");
    }
    fprintf(f, "        %s(", h->device_lib && h->cq ? h->cq : h->cf);
    bool any = false;
    if (h->device_lib && h->cq) {
        fputs("cnb_stream", f);
        any = true;
    }
    for (int k = 0; k < h->nparams; k++) {
        const HxParam *p = &h->params[k];
        fputs(any ? ", " : "", f);
        any = true;
        if (!strcmp(p->kind, "scalar")) {
            fprintf(f, "(%s)p_%s", p->c, p->name);
            continue;
        }
        const HxArg *g = NULL;
        for (int i = 0; i < h->args.n; i++)
            if (((HxArg *)h->args.v[i])->param == k)
                g = h->args.v[i];
        fprintf(f, "(%s%s *)%s.data_ptr()", strcmp(p->access, "rw") ? "const " : "", p->c, g->name);
    }
    fputs(");\n", f);
    if (h->device_lib && !h->cq)
        fprintf(f, "        cairn_%s_device_stream(nullptr);\n", h->library);
    fputs("    }\n", f);
    /* what it returns: SOL-ExecBench takes none; the others the results, else the outputs */
    Vec ret = {0};
    for (int pass = 0; pass < 2 && !ret.n && fmt != HX_SOL; pass++)
        for (int i = 0; i < h->args.n; i++) {
            const HxArg *g = h->args.v[i];
            if (pass == 0 ? g->result : g->output)
                vec_push(a, &ret, (void *)g->name);
        }
    if (!ret.n)
        fputs("    return pybind11::none();\n", f);
    else if (ret.n == 1)
        fprintf(f, "    return pybind11::cast(%s);\n", (const char *)ret.v[0]);
    else {
        fputs("    return pybind11::make_tuple(", f);
        for (int i = 0; i < ret.n; i++)
            fprintf(f, "%s%s", i ? ", " : "", (const char *)ret.v[i]);
        fputs(");\n", f);
    }
    fputs("}\n\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m)\n{\n", f);
    fprintf(f, "    m.def(\"%s\", &%s, ", fn, fn);
    cpp_string(f, arena_printf(a, "%s, a CAIRN function (checked before any pointer crosses)", fn));
    fputs(");\n}\n", f);
}
