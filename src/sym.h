/*
 * sym.h: the symbolic core every checker reasons with.
 *
 * A symbolic integer is a form: a constant plus a sum of terms, each an
 * exact coefficient times a product of at most SYM_DEG unknowns. An unknown
 * is a key: a symbol (a parameter, a lane index, a loop counter, a local
 * whose value is not followed) or an atom, an operation the forms cannot
 * express (n / 2, shr(m, k), min(a, b)) made once per distinct operation
 * and operands, so `n / 2` written twice is one unknown. Keys are pointers,
 * never printed text. Coefficients are 128-bit and every operation checks
 * overflow; what does not fit, and what the core cannot follow, is "any":
 * a value about which nothing is known. A checker treats any as the whole
 * view or every value and refuses what then cannot be proved; no path drops
 * a term.
 *
 * An environment (SEnv) follows a body: `let` and `let mut` bind, an
 * assignment rebinds, the paths of an `if` are joined (a value that differs
 * between them becomes any), a loop counter is an unknown with a range, or,
 * where the caller asks and the trip count is a small constant, a concrete
 * value in each iteration. Every value carries a uniformity bit: whether it
 * is the same in every lane (or thread) of the scope being checked.
 *
 * CAIRN's integer arithmetic traps on overflow, so the algebra of forms is
 * exact for every run that gets past the expression: two extents with one
 * form have one value whenever both are computed.
 */
#ifndef CAIRN_SYM_H
#define CAIRN_SYM_H

#include "cairn.h"

typedef __int128 SNum;

enum { SYM_TERMS = 8, SYM_DEG = 3 };

typedef struct SKey SKey;

typedef struct {
    SNum c;                       /* never 0 */
    int deg;                      /* 1 .. SYM_DEG */
    const SKey *v[SYM_DEG];       /* sorted by address */
} STerm;

typedef struct {
    bool any;                     /* nothing known */
    int n;
    SNum k;
    STerm t[SYM_TERMS];
} SForm;

typedef struct {
    SForm f;
    bool uniform;                 /* the same in every lane of the scope */
} SVal;

/* What an unknown stands for. */
typedef enum {
    SK_SYM,                       /* a symbol's value, fixed in the scope (a parameter, an outside local) */
    SK_LANE,                      /* the lane index of the region being checked */
    SK_COUNTER,                   /* a loop counter: one value per iteration, in [lo, hi) */
    SK_ATOM,                      /* op(a, b) on forms the core does not expand */
} SKeyKind;

struct SKey {
    SKeyKind kind;
    const Sym *sym;               /* SK_SYM, SK_LANE, SK_COUNTER */
    TokKind op;                   /* SK_ATOM: T_SLASH, T_PERCENT, T_AMP, ...; or T_LT (min), T_GT (max),
                                     T_LBRACK (shl), T_RBRACK (shr), T_STAR (a product past SYM_DEG) */
    SForm *a, *b;                 /* SK_ATOM operands */
    SForm *lo, *hi;               /* SK_COUNTER: [lo, hi) */
    bool uniform;
    bool has_lo, has_hi;          /* a concrete range, inclusive */
    SNum rlo, rhi;
    int id;                       /* creation order: dumps print in it */
    const char *name;             /* for dumps and messages */
};

/* ---- forms */
SForm sform_any(void);
/* sform.c's number helpers, for sym.c: v in t's range; op(a, b) on constants (false: none). */
bool sform_num_fits(SNum v, const Type *t);
bool sform_atom_apply(TokKind op, SNum a, SNum b, SNum *out);
SForm sform_const(SNum k);
SForm sform_key(const SKey *k);
bool sform_is_const(const SForm *f, SNum *k);
bool sform_add(SForm *out, const SForm *a, const SForm *b, int sign);   /* false: overflow (out is any) */
bool sform_mul(SForm *out, const SForm *a, const SForm *b);
bool sform_scale(SForm *out, const SForm *a, SNum c);
bool sform_equal(const SForm *a, const SForm *b);
bool sform_has(const SForm *f, const SKey *k);
/* f = coef * k + rest, with k in no term of coef or rest: false when k has
 * a degree above one somewhere (then nothing is split). */
bool sform_split(const SForm *f, const SKey *k, SForm *coef, SForm *rest);
/* f with k replaced by g. */
bool sform_subst(SForm *out, const SForm *f, const SKey *k, const SForm *g);
/* "3 * i + n - 1" (terms in key creation order), "any" */
const char *sform_str(Arena *a, const SForm *f);

/* ---- environments */
typedef struct SEnv SEnv;

/* How a name that the environment does not bind is seen. */
typedef enum {
    SN_FIXED,                     /* an outside local or parameter is one unknown for the whole scope
                                     (a region: no lane may assign it) */
    SN_CONST_ONLY,                /* only consts, generics and immutable lets with known values */
    SN_IMMUTABLE,                 /* parameters and immutable lets; a `let mut` outside is any (extents:
                                     it may have changed since a view was made from it) */
} SNames;

SEnv *senv_new(Arena *a, SNames names);
/* Element reads the hook calls fixed are uniform unknowns, not one unknown
 * per element: for a scope where an element may change between two reads
 * (a cooperative region's shared arrays, between barriers), where two reads
 * of one element must not be taken for one value. */
void senv_elems_opaque(SEnv *e);
/* Whether the element x[i] a scope reads has one value throughout it (no
 * lane of it writes the view): then a read with a uniform index is a
 * uniform unknown, else any. Without a hook every element read is any. */
typedef bool (*SElemFixed)(void *ctx, Node *elem);
void senv_hook(SEnv *e, SElemFixed f, void *ctx);
/* Whether an evaluation since the last reset read a `let mut` from
 * outside the walk (a value that may have changed); reset: clear it. */
bool senv_saw_mut(SEnv *e, bool reset);
SKey *senv_key(SEnv *e, const Sym *s);                 /* the unknown standing for s (made once) */
SKey *senv_lane(SEnv *e, const Sym *lane, const SForm *extent);   /* the lane index, in [0, extent) */
void senv_bind(SEnv *e, const Sym *s, SVal v);
bool senv_lookup(SEnv *e, const Sym *s, SVal *out);

/* A mark in the environment's history: after walking one path of an if,
 * senv_join_begin remembers what it bound and takes the bindings back to
 * the mark; after the other path, senv_join_end merges the two (a binding
 * that differs becomes any; it is uniform only where the condition is). */
typedef struct SJoin SJoin;
int senv_mark(SEnv *e);                                  /* closed by senv_join_end */
SJoin *senv_join_begin(SEnv *e, int mark);
void senv_join_end(SEnv *e, SJoin *j, bool cond_uniform);
void senv_undo(SEnv *e, int mark);                       /* forget what was bound since the mark (kept open) */

/* A loop `for k in lo..hi`: a counter key with its range, bound to k. */
SKey *senv_counter(SEnv *e, const Sym *k, const SVal *lo, const SVal *hi);
/* Every `let mut` the loop body assigns becomes any (its value differs
 * between iterations), uniform when every assignment to it is. Call before
 * walking a body once for all its iterations. */
void senv_havoc_assigned(SEnv *e, Node *body);
/* A `while` loop walked once for all its iterations, its strides followed:
 * a `let mut` the body advances once an iteration by an amount the same in
 * every iteration (`i += 64;`, `i = i + g * 256;`, a statement of the body
 * itself, which no continue of the loop skips, and the local's only
 * assignment in the loop) is start + amount * j, with j a counter key
 * (SK_COUNTER) for the iteration, in [0, trips) where trips is an unknown;
 * every other local the body assigns is havocked. Call before walking the
 * condition and the body; returns j, or NULL when no local advances so (and
 * then it is senv_havoc_assigned). */
SKey *senv_while_counter(SEnv *e, Node *loop);

/* ---- evaluation */
SVal sym_eval(SEnv *e, Node *x);
/* Walks a statement, updating the environment: lets, assignments, ifs
 * (both paths, joined), loops (havocked, counter bound). For checkers that
 * look at nothing but values. */
void sym_exec(SEnv *e, Node *s);
/* The steps sym_exec takes, for a checker that walks a body itself. */
void sym_let(SEnv *e, Node *let);
void sym_assign(SEnv *e, Node *assign);
void sym_lend(SEnv *e, Node *call);       /* locals lent rw become any */
/* A `for` whose bounds are constants: its first counter value and trip count. */
bool sym_trip(SEnv *e, Node *loop, SNum *lo, SNum *count);

/* The value of a checked integer expression when it is a compile-time
 * constant (literals, consts, generics, and what they compute), fitting
 * every intermediate type. */
bool sym_const(Arena *a, Node *x, int64_t *out);

/* A condition's truth when the environment decides it: comparisons of
 * integers whose difference is a constant, &&, || (the right side only
 * where the left lets it run), !, true and false. false: undecided. */
bool sym_truth(SEnv *e, Node *c, bool *out);

/* Concrete evaluation: lane index = lane, counters from vals (by key, or
 * their lo when not given), atoms recursively. false: an unknown has no
 * value. */
typedef struct {
    const SKey **keys;
    SNum *vals;
    int n;
} SAssign;
bool sform_eval(const SForm *f, const SAssign *as, SNum *out);

/* What a condition says, as comparisons d OP 0 (T_LT, T_LE, T_GT, T_GE,
 * T_EQ, T_NE) with d taken in the environment now: sym_conds writes those
 * that `c == truth` implies (a comparison of integers, the sides of && when
 * true and of || when false, through !) into out, at most max, and returns
 * how many; a part it cannot state is one condition with d any. */
typedef struct {
    SForm d;
    TokKind op;
} SCond;
int sym_conds(SEnv *e, Node *c, bool truth, SCond *out, int max);
/* Does cond hold under as? false with *known false when it cannot say. */
bool scond_holds(const SCond *c, const SAssign *as, bool *known);

/* Bounds: the least and greatest values f may take, from its unknowns'
 * ranges (interval arithmetic). */
bool sform_lower(const SForm *f, SNum *lo);
bool sform_upper(const SForm *f, SNum *hi);
/* f >= 0 on every run (proved from the ranges). */
bool sform_nonneg(const SForm *f);

#endif
