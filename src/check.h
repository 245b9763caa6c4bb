/*
 * check.h: what the checker's files (check.c, check_stmt.c, check_expr.c,
 * check_call.c) share and nobody else needs. The public entry point is
 * check_program in cairn.h.
 *
 * The context (Ctx) is passed down every call: no globals, so any part of
 * the checker can be run on a hand-made AST from a unit test.
 */
#ifndef CAIRN_CHECK_H
#define CAIRN_CHECK_H

#include "cairn.h"
#include "walk.h"
#include "frag.h"

/* A scope is one block's names: an open-addressing hash table, made on the
 * first declaration (most blocks declare nothing). A lookup walks the chain
 * of enclosing scopes, so it costs one hash per name and one probe per level
 * (the speed target is the whole check over 1M lines/s). */
typedef struct Scope Scope;
struct Scope {
    Scope *parent;
    Sym **slots;
    uint32_t *hashes;     /* hashes[i]: the hash of slots[i]->id, so a probe compares it, not the string */
    int cap, n;
    int fn_level;         /* 0: globals; the function nesting it belongs to */
};

/* One function being checked (a named fn, an instance or a closure). */
typedef struct {
    Node *fn;             /* N_FN or N_CLOSURE */
    Type *ret;            /* TY_VOID when it gives no value */
    int loop_depth;       /* for break / continue (E-LOOP) */
    int loop_breaks;      /* breaks seen at the innermost loop (divergence of while true) */
    int parallel;         /* inside a parallel body: indexing @device is not refused here */
    Node *coop;           /* the innermost cooperative region (or finish) being checked */
    Node *coop_body;      /* its body (or finish) block: shared arrays are declared directly in it */
    int64_t coop_bytes;   /* its shared arrays' bytes so far, each at a 128-byte boundary */
} FnState;

/* An E-UNSUPPORTED refusal, held back until the end: it is reported only
 * when nothing else was, so a program that breaks a rule we do check
 * (n02's E-OPERATOR, d20's E-WIDE, ...) is refused with that rule's code
 * and not buried under "not yet" messages. */
typedef struct {
    Span at;
    const char *what;
    const char *help;
} Deferred;


typedef struct {
    const char *op, *rounding, *overflow;   /* overflow: "" when not listed */
    TypeKind from, to;
} NumSeen;

typedef struct Ctx {
    Check *c;
    Arena *a;
    Sink *sink;
    Scope *universe;      /* built-ins, type names, std, Cache */
    Scope *globals;       /* fns, consts, layouts */
    Scope *scope;         /* innermost */
    FnState *fs;          /* NULL outside a function body */
    int fn_level;         /* closure nesting of the function being checked */
    Node *closures[64];   /* closures[l]: the closure at level l (l >= 1) */
    int next_id;          /* makes C names unique */
    Vec deferred;         /* Deferred* */
    StrMap instances;     /* "f|2,3" -> N_FN instance */
    Vec work;             /* N_FN instances still to check */
    Vec work_generic;     /* the generic N_FN of each work item */
    Vec broken;           /* generics whose own check reported errors */
    int instance_count;
    int device_indexes;   /* @device elements reached by lanes (a region counts its own) */
    Node *host_index;     /* the first host element a lane reached (NULL: none yet) */
    bool generic_unknown; /* checking a generic with its parameters unknown */
    Type *resolving;      /* marker in Sym.ty: a const being evaluated (cycles) */
    Sym *builtin_syms[B_NBUILTINS];
    NumSeen num_seen[256];   /* numerics already listed (ops x types: a few dozen) */
    int nnum;
} Ctx;

/* ---- check.c: scopes, names, declarations, generics */
Scope *scope_push(Ctx *x);
void scope_pop(Ctx *x);
Sym *scope_find(Ctx *x, const char *id, Scope **where);
Sym *sym_new(Ctx *x, SymKind k, const char *id, Node *decl, Type *ty);
bool declare_local(Ctx *x, Sym *s, Span at);
Sym *resolve_name(Ctx *x, Node *name);      /* E-NAME when unknown; NULL then */
void const_resolve(Ctx *x, Sym *s);
Type *resolve_type(Ctx *x, Node *t);        /* N_TYPE to Type; TY_ERROR after a report */
Node *instantiate(Ctx *x, Sym *generic, Node *call);   /* NULL when not possible now */
void unsupported(Ctx *x, Span at, const char *what, const char *help);
void numerics_add(Ctx *x, const char *op, const Type *from, const Type *to, const char *rounding);
void numerics_add_unordered(Ctx *x, const char *op, const Type *t);
void numerics_add_math(Ctx *x, const char *op, const Type *t, const char *claim);
void numerics_add_exact_sum(Ctx *x, const Type *t);
void numerics_add_atomic(Ctx *x, const Type *t, bool device);
void numerics_add_mma(Ctx *x, const Type *operand, bool device);
bool numerics_atomic_in_shared(Ctx *x, Node *el);   /* listed by numerics_add_region_atomics */
void numerics_add_region_atomics(Ctx *x, Node *region);
void numerics_add_overflow(Ctx *x, const char *op, const Type *from, const Type *to, const char *rounding,
                           const char *overflow);
const char *fresh_cname(Ctx *x, const char *prefix, const char *id);
Span closing_brace(Span open);

/* ---- check_stmt.c: statements and function bodies */
void check_fn_body(Ctx *x, Node *fn);
void check_block(Ctx *x, Node *b, bool new_scope);
void check_parallel(Ctx *x, Node *s);        /* a region (also a spawned one) */
Type *check_spawn(Ctx *x, Node *e);          /* spawn transfer(..) / spawn parallel .. (E-SPAWN) */
bool stmt_returns(const Node *s);
Type *check_closure(Ctx *x, Node *e, Type *expected);

/* ---- check_expr.c: expressions */
Type *check_expr(Ctx *x, Node *e, Type *expected);
Type *check_expect(Ctx *x, Node *e, Type *want, const char *what);
Type *check_expectf(Ctx *x, Node *e, Type *want, const char *fmt, const char *a, const char *b, const Node *node);
bool is_untyped(const Node *e);
bool untyped_is_float(const Node *e);
Type *check_same(Ctx *x, Node **es, int n, Type *expected, Type **types);
Type *type_error(void);
Type *view_type(Ctx *x, Access acc, Type *elem, Node *extent, Placement p);
Type *array_type(Ctx *x, Type *elem, int64_t count);
bool is_error(const Type *t);
const char *tstr(Ctx *x, const Type *t);
const char *estr(Ctx *x, const Node *e);
bool place_assignable(Ctx *x, Node *e, bool report, const char *why);
/* An access at e of the view base (of type bt), as x[i] is placed: refused
 * (reported, true) where its side cannot reach the memory; in a lane, it
 * counts toward running the lanes on the device. */
bool check_index_placement(Ctx *x, Node *e, Node *base, Type *bt);
Type *check_collect(Ctx *x, Node *e, Type *expected);
Type *binop_check(Ctx *x, Node *at, TokKind op, Node *a, Type *ta, Node *b, Type *tb);
bool value_fits(int64_t v, const Type *t);
Type *check_name(Ctx *x, Node *e, bool callee);

/* A region's or collector's lanes: where they run (check_expr.c). */
typedef struct {
    int device_before;
    Node *host_before;
    bool outermost;
} LanePlace;
void lanes_begin(Ctx *x, LanePlace *p);
bool lanes_end(Ctx *x, LanePlace *p, const char *what);   /* true: the lanes run on the device */

/* ---- check_call.c: calls */
Type *check_call(Ctx *x, Node *e, Type *expected);
void check_args_loose(Ctx *x, Node *e);

/* check_call.c, "layouts": a layout's value (NULL after its error), a method call
 * on one (folded into a usize literal), a layout named as a value. */
const struct Layout *layout_resolve(Ctx *x, Sym *s);
Type *check_layout_method(Ctx *x, Node *e, Sym *s);
Type *layout_as_value(Ctx *x, Node *e, Sym *s);

/* ---- check_builtin.c: built-in functions */
Type *check_builtin(Ctx *x, Node *e, Builtin b, Type *expected);
/* TmemAcc (the type or its constructor): E-TARGET-FEATURE on every target,
 * since nothing lowers tensor memory (numerics.md, devices.md). */
Type *check_refuse_tmem(Ctx *x, Span at);
/* A fragment's type (WmmaA[f16, 16, 16, 16]) and its constructor
 * (WmmaAcc[f32, 16, 16, 16](0.0)), read from the table in frag.h: refused
 * until fragments are lowered (issue 18). */
Type *check_fragment_type(Ctx *x, Node *t, FragKind f);
/* ---- grad.c: derive grad */
Node *grad_signature(Ctx *x, Node *derive, Node *f);   /* f_grad's N_FN, no body; NULL after E-GRAD */
bool grad_body(Ctx *x, Node *derive, Node *f, Node *fn);   /* false after E-GRAD-FORM or E-GRAD-CALL */
Type *check_fragment_call(Ctx *x, Node *e, FragKind f);

/* atomic_OP(x[i], v): an element of an rw view and a value of its type */
Type *check_atomic(Ctx *x, Node *e, Builtin b);
/* load_wide[K](x, i[, hint]) and store_wide(x, i, v[, hint]) */
Type *check_load_wide(Ctx *x, Node *e);
Type *check_store_wide(Ctx *x, Node *e);

/* ---- check_stmt.c: the typing of cooperative regions (issue 13) */
void check_coop(Ctx *x, Node *s);            /* blocks b in G threads t in T { } [then threads ..] */
void check_shared(Ctx *x, Node *s);          /* shared s:T[N] [= zeroed]; */
void check_pipeline(Ctx *x, Node *s);        /* pipeline p:T[N] depth D; */
void check_barrier(Ctx *x, Node *s);         /* barrier; */
bool coop_warp_place(Ctx *x, Node *e, const char *what);   /* a warp operation inside a region */
/* ---- check_coop.c: their rules, in the parallel-rules pass */
void coop_rules(Ctx *x);
/* ---- coop_global.c: arrays from outside a region (E-COOP-GLOBAL) */
void coop_global(Ctx *x, Arena *scratch, Node *region, bool finish);
/* ---- check_stage.c: a body's pipelines (E-STAGE-*) */
void stage_rules(Ctx *x, Arena *scratch, Node *body, const Vec *tsyms, const Vec *text);
/* The atomic update e's value comes from (through lets and assignments in
 * body), for messages: an index an atomic counter hands out. NULL: none. */
Node *coop_atomic_origin(Node *body, Node *e);

/* ---- check_par.c: lanes and plans (issue 4), the parallel-rules pass */
void check_par_program(Ctx *x);             /* after every body is typed */
/* ---- check_dev.c: device rules (issue 5), after check_par_program */
void check_dev_program(Ctx *x);

/* std.math: each function, its argument count and what its portable implementation claims per
 * type (NULL: none; the host's C library, sequential host code only). */
typedef struct {
    const char *id;
    int arity;
    const char *f32, *f64;
} MathFn;
const MathFn *math_fn(const char *id);
int math_arity(const char *id);   /* std.math.ID's argument count; 0: no such function */
const char *math_claim(const char *id, const Type *t);
const char *math_portable_names(Arena *a);

#endif
