/*
 * harness.h: a benchmark mapping (harness.toml) held to a function's
 * signature (harness.c), and what the exports write from it (export.c,
 * export_py.c, new.c).
 *
 * The mapping says which benchmark argument feeds which parameter, in the
 * order the benchmark passes them, with its dtype and shape; each integer
 * parameter no argument feeds is an [extents] expression over the axes. A
 * mapping the signature does not bear is refused with E-HARNESS-MAPPING,
 * -DTYPE, -SYMBOL or -FORMAT (or E-TARGET-MISMATCH), at its line in the file.
 */
#ifndef CAIRN_HARNESS_H
#define CAIRN_HARNESS_H

#include "cli.h"

#include <cjson/cJSON.h>

typedef enum { HX_SOL, HX_GPUMODE, HX_KERNELBENCH } HxFormat;
const char *hx_format_name(HxFormat f);          /* "sol-execbench", ... */
bool hx_format_parse(const char *s, HxFormat *f);

/* An extent expression: an integer, an axis, or + - * / of two. */
typedef struct HxExpr HxExpr;
struct HxExpr {
    char op;                  /* 0: leaf; '+', '-', '*', '/' */
    long long value;          /* a literal leaf */
    const char *axis;         /* an axis leaf, or NULL */
    HxExpr *l, *r;
};

/* A parameter of the function, from the library receipt's exports. */
typedef struct {
    const char *name, *type, *kind;   /* kind: "scalar", "view", "ref" */
    const char *elem;                 /* a view's or ref's element; a scalar's type */
    const char *access;               /* a view's "ro" or "rw" */
    const char *c;                    /* the C type */
    bool device;                      /* a @device view */
    const cJSON *extent;              /* the receipt's tree, or NULL */
} HxParam;

/* One [[argument]] or [[result]]. */
typedef struct {
    const char *name, *parameter, *dtype;
    const char **shape;       /* axis names or digit strings; NULL: a number */
    int nshape;
    bool output, result;
    int line;                 /* the table's header */
    int dtype_line;
    int param;                /* the parameter it feeds (index) */
    const char *elem;         /* the dtype as CAIRN spells it */
} HxArg;

typedef struct {
    const char *name;
    long long value;
    int line;
} HxAxis;

typedef struct {
    const char *param;        /* an integer parameter no argument feeds */
    const char *text;
    HxExpr *expr;
    int line;
} HxExtent;

typedef struct {
    const char *path;
    Source src;               /* the file's text, for diagnostics */
    Vec axes, extents, args;  /* HxAxis*, HxExtent*, HxArg* (arguments and results, in order) */
    /* [benchmark] */
    const char *definition, *leaderboard, *gpu, *problem, *ranking_by;
    int benchmark_line, gpu_line;
    /* the function, once bound */
    const char *fn, *cf, *cq, *no_cq, *returns, *library;
    const cJSON *fn_json;     /* the receipt's entry for it */
    bool device_lib;
    HxParam *params;
    int nparams;
    int *param_extent;        /* per parameter: index into extents, or -1 */
} Harness;

/* Reads the mapping; a file that is not the TOML a mapping holds is a usage
 * error (printed, false, exit 2). */
bool hx_read(Arena *a, const char *path, Harness *h);
/* Holds the mapping to the function `fn` of the receipt's exports, for the
 * format and the device target (NULL: host); diagnostics go to the sink.
 * False when it refused. */
bool hx_bind(Arena *a, Harness *h, Sink *s, const cJSON *exports, const char *fn, HxFormat f, const char *target);

/* The CAIRN element type for a benchmark dtype ("bfloat16" or "bf16" ->
 * "bf16"), NULL for a name CAIRN has no type for; *known says whether the
 * name is a format at all. */
const char *hx_dtype_elem(const char *dtype, bool *known);
/* The torch dtype for a CAIRN element ("bf16" -> "bfloat16"). */
const char *hx_torch_dtype(const char *elem);

/* Reading files whole: NULL (and errno) when it cannot. */
char *hx_read_file(Arena *a, const char *path, size_t *len);
/* The SHA-256 of n bytes as 64 hex digits. */
const char *hx_sha256(Arena *a, const char *s, size_t n);

/* The C++ binding (export_cpp.c): header_text is the library header, inlined. */
void hx_write_binding(Arena *a, FILE *f, const Harness *h, const char *header_text, HxFormat fmt);

/* What an export writes and a submission embeds (export.c, export_sub.c). */
typedef struct {
    HxFormat format;
    const char *target;                  /* the device target, or NULL */
    const char *code_name, *code;        /* LIB_cairn.cu or .cpp: the emitted code, runtime inlined */
    size_t code_len;
    const char *binding_name, *binding;  /* S_binding.cpp */
    size_t binding_len;
    cJSON *nvcc, *cxx;                   /* the flags (arrays of strings) */
    const char *submission_sha;          /* set by hx_write_submission */
    size_t submission_bytes;
} HxSources;

/* The upstream commits each format follows (read for docs/harness.md). */
#define SOL_COMMIT "8d2237d2012cba81f64905b273b592653623abf9"
#define GPUMODE_COMMIT "f83cb92a534cc67fa98d7e9813e7f8238abdb4e0"
#define KERNELBENCH_COMMIT "423217d9fda91e0c2d67e4a43bf62f96f6d104f1"

void hx_flags(Arena *a, const char *target, cJSON **nvcc, cJSON **cxx);
/* Writes the submission into dir; returns its name (solution.json,
 * submission.py, model_new.py), or NULL on failure. */
const char *hx_write_submission(Arena *a, const char *dir, const Harness *h, HxSources *src);
/* The cairn.harness/1 record (takes ownership of files and the flags). */
cJSON *hx_record(Arena *a, const Harness *h, HxSources *src, const char *submission, cJSON *files,
                 const char *mapping, const char *source, const char *receipt);
/* The sources a submission embeds against the export's files: EXIT_OK, or
 * the broken report printed and EXIT_REFUSED. */
int hx_check_embedded(Arena *a, const char *dir, const cJSON *record);
/* Prints {"status": "harness-broken", ...} for the file and why; EXIT_REFUSED. */
int hx_broken(const char *dir, const char *file, const char *why);
int hx_export(Arena *a, const char *name, const char *harness, const char *symbol, const char *out,
              const char *mapping, const char *target);
int hx_check_package(Arena *a, const char *dir);

int cmd_export(int argc, char **argv);
int cmd_new(int argc, char **argv);

#endif
