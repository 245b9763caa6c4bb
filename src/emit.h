/*
 * emit.h: what the emitter's files (emit.c: program, types, functions and
 * statements; emit_expr.c: expressions, calls, collectors and closures)
 * share and nobody else needs. The entry point is emit_program in cairn.h.
 *
 * Output is built in memory buffers, one per section of the C file (type
 * definitions, prototypes, definitions) and one per function being written,
 * because emitting one function can ask for things that must come earlier in
 * the file (a struct for Array[f32, 4], a closure's environment, the adapter
 * that makes a named function a value).
 */
#ifndef CAIRN_EMIT_H
#define CAIRN_EMIT_H

#include "cairn.h"
#include "par.h"

/* A growable string in the arena. */
typedef struct {
    char *s;
    size_t n, cap;
} Buf;

/* The owners of one C block: the release statements its buffers need at
 * every exit, and whether it is a loop body (where break and continue stop
 * releasing). */
typedef struct EScope EScope;
struct EScope {
    EScope *up;
    Vec releases;         /* const char*: "cn_release_f32(x);" in declaration order */
    bool loop_body;
};

/* One C function being written: a CAIRN function, a closure, or a helper. */
typedef struct {
    Node *fn;             /* N_FN or N_CLOSURE; NULL for a helper */
    Type *ret;            /* TY_VOID when it gives no value */
    EScope *scope;        /* innermost */
    Buf *out;             /* where statements go (swapped to capture hoists) */
    int indent;
    bool has_envs;        /* declares cn_envs: it makes closures */
    bool free_envs;       /* frees them at each exit: no function value can leave it */
    const Vec *captures;  /* Sym*: names read through cn_env (a closure); NULL otherwise */
    bool unheld;          /* device work waits where it stands (devices.md, "One wait, or none") */
} EFn;

/* A set of names (open addressing, in the arena): what has been written
 * once already. A list searched from the start made emitting quadratic in
 * the number of functions. */
typedef struct {
    const char **keys;
    unsigned *hashes;
    int cap, n;
} NameSet;
bool nameset_add(Arena *a, NameSet *s, const char *key);   /* false: it was there */

typedef struct {
    Emit *e;
    Arena *a;
    Buf types;            /* typedefs, env structs: first */
    Buf protos;           /* every function's prototype */
    Buf defs;             /* every function's definition: the tail of def_pieces */
    Vec def_pieces;       /* Buf*: definitions written whole (emit_defs_add), before defs */
    NameSet written;      /* typedefs, __val adapters and __chk wrappers written */
    EFn *fn;              /* the function being written */
    int next_tmp;
    int next_closure;
    const char *file_lit; /* the source name as a C string literal */
    bool uses_par;        /* a region, pooled collector or atomic: include cairn_par.h */
    bool uses_math;       /* a portable std.math call: include cairn_math.h */
    bool uses_float;      /* a storage-float conversion, quantize or bits: include cairn_float.h */
    bool uses_dev;        /* device work: include cairn_exec.h */
    bool uses_mma;        /* mma_unordered: include cairn_mma.h */
    bool uses_frag;       /* a tensor-core fragment: include cairn_frag.h */
    bool uses_coop;       /* a cooperative region: include cairn_coop.h */
    bool uses_wide;       /* load_wide / store_wide: include cairn_wide.h */
    const struct CoopLayout *coop_layout;   /* the body of a region being written: its shared arrays */
    bool coop_device;     /* ... and it runs on the device: CUDA's barrier and warp intrinsics */
    const PtrMap *fast;   /* ... and these of its operations are proved at launch (emit_fast.c) */
    const PtrMap *fast_pre;   /* ... and these reads were loaded ahead: N_INDEX -> its C local */
    Buf *coop_emu;        /* ... or it is a device region's body written for the emulated machine:
                             the section its combine functions go to (emit_coop.c) */
    Node *stmt_expr;      /* the expression of the statement being written (its value is dropped) */
    bool wait_then_wait;  /* the pipeline wait being written is followed at once by another */
    bool wide_lane;       /* a wide device lane is being written: its posts go through cn_o */
    Buf kernels;          /* device lanes and their kernels: after the prototypes */
    Vec fn_bufs;          /* Buf*: the output of each level of function being written */
    int fn_level;
    char *run;            /* the block top-level functions are written into, one after another */
    size_t run_used, run_cap;
    const Source *lines_src;      /* the source line_starts is for (emit_loc) */
    const char **line_starts;     /* where each of its lines starts */
    int nlines;
} Ex;

/* ---- emit.c */
void buf_printf(Arena *a, Buf *b, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void buf_append(Arena *a, Buf *dst, const Buf *src);
/* Adds a function's whole definition after those written so far, without
 * copying it (a million lines of C were copied twice over). */
void emit_defs_add(Ex *x, const Buf *def);
void emit_line(Ex *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *emit_fmt(Ex *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *emit_tmp(Ex *x, const char *what);
const char *emit_ctype(Ex *x, Type *t);
const char *emit_suffix(const Type *t);
const char *emit_str_lit(Ex *x, const char *s);
const char *emit_src_lit(Ex *x, const Node *e);   /* its source text, cut at SRC_TEXT_MAX */
const char *emit_at(Ex *x, Span at);
const char *emit_int_limit(const Type *t, bool max);
Type *emit_fn_ret(Node *fn);
Type *emit_param_type(Node *param);
void emit_fn_body(Ex *x, Node *fn, const char *cname, const Vec *captures, const char *header);
void emit_block(Ex *x, Node *b, bool loop_body);
bool emit_has_closure(Node *n);

/* ---- emit_expr.c */

/* Limits of the emitted C (docs/internals.md, "Limits"). A chain of more
 * than CHAIN_NEST links is written as statements over a temporary, not as
 * nested calls; an operand nested deeper than SPILL_NEST brackets is
 * computed into a temporary first; the source text a guard's message quotes
 * is cut at SRC_TEXT_MAX characters. */
enum { CHAIN_NEST = 16, SPILL_NEST = 48, SRC_TEXT_MAX = 200 };

const char *emit_expr(Ex *x, Node *e);
const char *emit_operand(Ex *x, Node *e);   /* emit_expr, spilled when it nests too deep */
const char *emit_addr(Ex *x, Node *lvalue);
const char *emit_int_lit(Ex *x, const Type *t, bool neg, uint64_t mag);
bool emit_is_impure(const Node *e);
bool emit_may_guard(const Node *e);   /* can evaluating it fail a guard (an index, checked arithmetic, a call)? */
void emit_params_decl(Ex *x, Node *fn, Buf *b, bool env_first);

/* ---- emit_fast.c: launch-time proofs of a device region's operations */

typedef struct Caps Caps;
/* Writes, before a device region's launch, host code that proves its
 * marked operations safe for every thread (marks: Node* -> non-NULL); the
 * name of the resulting bool, or NULL when the region has no proofs. */
const char *fast_prove(Ex *x, Node *coop, const char *args, const char **gv, Caps *caps, PtrMap *marks);
bool fast_marked(const Ex *x, const Node *e);
struct FastLoop;
const struct FastLoop *fast_loop(const Ex *x, const Node *w);
void fast_emit_group(Ex *x, Node *w, const struct FastLoop *L);

/* ---- emit_par.c: regions, pooled collectors, atomics (issue 4) */

/* What a lane reads from outside (emit_par.c; emit_dev.c shares it). */
struct Caps {
    Vec declared;         /* Sym* declared inside */
    Vec used;             /* Sym* named, in first-use order */
    PtrSet declared_set, used_set;   /* the same, to test membership (par.h) */
};
void caps_add(Ex *x, Caps *c, Node *n);

/* A lane's context: a struct of what it reads, filled at the call site. */
typedef struct {
    const char *name;     /* cn_regionK: the function and its struct */
    Vec ctypes, fields, values;
    const char *what;     /* device kernels: the construct as the abort message names it
                             (a C string literal expression; emit_dev.c) */
} Ctxt;
void field(Ex *x, Ctxt *k, const char *ctype, const char *name, const char *value);
void capture_fields(Ex *x, Ctxt *k, Caps *c, Sym *skip0, Sym *skip1);
void ctx_struct(Ex *x, Ctxt *k);
const char *ctx_fill(Ex *x, Ctxt *k);
void ctx_unpack(Ex *x, Ctxt *k);
const char *index_name(Ex *x, Sym *s);

/* A lane function: its own output and scope, appended to the definitions. */
typedef struct {
    EFn f;
    EFn *saved;
    Buf out;
} LaneFn;
void lane_fn_open(Ex *x, LaneFn *L);
void lane_fn_begin(Ex *x, LaneFn *L, const char *header);
void lane_fn_end(Ex *x, LaneFn *L);

/* A collector's accumulator: how partials are kept, folded and merged.
 * ACC_WRAP is a device scan's checked + over integers: a partial of the
 * value type that wraps. Every prefix up to the first that does not fit is
 * then exact (its wrapped value is itself), and the store of each prefix
 * checks the one step from the prefix before it (cn_par_step_T): the term
 * is after - before, exactly, so the first prefix that does not fit traps
 * there, and no prefix traps when all fit. */
typedef enum { ACC_PLAIN, ACC_SUM128, ACC_PMUL, ACC_EXACT, ACC_WRAP } AccKind;
typedef struct {
    Node *e;
    Type *vt;
    const char *op;
    AccKind ak;
    const char *acc_t;    /* C type of a partial */
    const char *suf;      /* vt's suffix */
    const char *at;       /* CN_AT(l, c) */
    const char *what;     /* for the overflow guard */
    bool staged;
    const char *dest;     /* scan, compact: the view (a field) */
    int pass;             /* scan, compact: 1 or 2 */
} Coll;
void coll_init(Ex *x, Coll *c, Node *e);
void acc_decl(Ex *x, Coll *c, const char *a);
void acc_fold(Ex *x, Coll *c, const char *a, const char *y);
void acc_merge(Ex *x, Coll *c, const char *a, const char *b);
const char *acc_value(Ex *x, Coll *c, const char *a);
Ctxt coll_ctx(Ex *x, Node *e, const char *prefix);
Ctxt region_ctx(Ex *x, Node **rs, int n, const char *prefix);
/* A scan's or compaction's destination: a local, a cn_dest field, and its name for messages. */
const char *emit_dest_view(Ex *x, Node *e, Ctxt *k, const char **name);

int emit_par_fused(Ex *x, const Vec *stmts, int i);     /* statements fused from i, or 0 */
void emit_par_regions(Ex *x, Node **regions, int n);    /* n regions as one pass */
/* One guard for every lane's `x[i]` (i the lane index), before the lanes. */
void emit_hoist_guards(Ex *x, Node **regions, int n, const char *lo, const char *hi);
void emit_hoist_collect_guards(Ex *x, Node *e, const char *lo, const char *hi);
const char *emit_par_collect(Ex *x, Node *e);           /* reduce / scan / compact ... parallel */
const char *emit_par_atomic(Ex *x, Node *e);

/* ---- emit_lib.c: cf_ / cq_ entries and their header (cairn build --header) */
void emit_library(Ex *x, FILE *header, const char *lib);

/* ---- emit_dev.c: device work (issue 5) */
void emit_dev_regions(Ex *x, Node **regions, int n);    /* kernels on the device */
const char *emit_dev_collect(Ex *x, Node *e);           /* reduce / scan / compact over @device views */
const char *emit_dev_transfer(Ex *x, Node *call);
const char *emit_mma(Ex *x, Node *call);
const char *emit_dev_spawn(Ex *x, Node *e);
const char *emit_dev_wait(Ex *x, Node *call);
void emit_dev_buffer(Ex *x, Node *s);
void emit_dev_after_op(Ex *x);                          /* an unheld function waits here */
/* A kernel's name in the device's abort message: "KIND at FILE:L:C in fn F
 * (its lanes call ...)", a C string literal expression. */
const char *emit_dev_what(Ex *x, const char *kind, Node *at, Node *b1, Node *b2);

/* ---- emit_coop.c: cooperative regions on host threads and on the device (issue 13) */
void emit_coop(Ex *x, Node *s);
void emit_coop_shared(Ex *x, Node *s);
void emit_coop_barrier(Ex *x);
void emit_coop_pipe_op(Ex *x, Node *e);      /* p.fill(..), p.wait(), p.release() */
const char *emit_warp_op(Ex *x, Node *call);
const char *emit_frag_op(Ex *x, Node *call);
const char *emit_frag_ctype(Ex *x, const Type *t);
const char *emit_layout_method(Ex *x, Node *call);
const char *emit_warp_reduce(Ex *x, Node *collect);
/* acc OP y for a collector's operator (emit_expr.c) */
const char *emit_combine(Ex *x, const char *op, Type *t, const char *acc, const char *y, Span at);

#endif
