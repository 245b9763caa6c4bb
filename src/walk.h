/*
 * walk.h: walking and rewriting the tree, building nodes, and sets and maps
 * of pointers.
 *
 * One function lists the children of every node kind (walk_children); the
 * visitor (walk_tree, par_walk) and the rewriter (walk_rewrite) both go
 * through it, so a new child is added in one place and every walker sees
 * it. Each child has a class, and a walk names the classes it follows:
 *
 *   WALK_CODE   what the node runs: operands, bodies, initialisers, a
 *               region's extent. The effect rows, the lane and device rules,
 *               explain and the emitter's captures follow these only.
 *   WALK_EXTRA  parts evaluated under rules of their own, which the code
 *               walkers leave alone: a launch's grid and threads, a
 *               cooperative region's extents, asm inputs, a call's type
 *               arguments, a spawn's tickets, a pipeline's depth, a
 *               layout's initialiser, plan items and their arguments.
 *   WALK_TYPES  types and declarations as written: N_TYPE and its parts,
 *               the types of lets, parameters and buffers, a function's
 *               generics, parameters and result, asm outputs.
 *
 * Chains (chain.h) and else-if chains are walked by loops in both: a
 * million-term sum does not recurse a million deep.
 */
#ifndef CAIRN_WALK_H
#define CAIRN_WALK_H

#include "cairn.h"

typedef enum {
    WALK_CODE = 1,
    WALK_EXTRA = 2,
    WALK_TYPES = 4,
    WALK_ALL = WALK_CODE | WALK_EXTRA | WALK_TYPES,
} WalkClass;

/* Called on each child of a node (NULL children included), in source
 * order, with its class; the child is replaced by what it returns. */
typedef Node *(*WalkChild)(Node *child, WalkClass cls, void *ctx);
void walk_children(Node *n, WalkChild f, void *ctx);

/* Calls visit(n, ctx) on n and, when it returns true, on each child whose
 * class is in mask, depth first, in source order (pre-order). Closures are
 * walked into. */
typedef bool (*WalkVisit)(Node *n, void *ctx);
void walk_tree(Node *n, unsigned mask, WalkVisit visit, void *ctx);

/* walk_tree(n, WALK_CODE, ...): what every checker and the emitter walk. */
typedef WalkVisit ParVisit;
void par_walk(Node *n, ParVisit visit, void *ctx);

/* Rebuilds the tree below n, post-order: every child (all classes) is
 * rewritten first and stored back into its parent, then f(n, ctx) is called
 * on the node with its new children, and what f returns takes n's place
 * (n itself to keep it). f is never called with NULL. */
typedef Node *(*RewriteFn)(Node *n, void *ctx);
Node *walk_rewrite(Node *n, RewriteFn f, void *ctx);

/* ------------------------------------------------------------ sets */

/* A set of pointers (open addressing, in the arena), for membership tests
 * that a list searched from the start made quadratic. */
typedef struct {
    const void **keys;
    int cap, n;
} PtrSet;
bool ptrset_has(const PtrSet *s, const void *p);
bool ptrset_add(Arena *a, PtrSet *s, const void *p);   /* false: it was there (or p is NULL) */

/* A map from pointers to pointers, the same way (side tables keyed by node). */
typedef struct {
    const void **keys;
    void **vals;
    int cap, n;
} PtrMap;
void *ptrmap_get(const PtrMap *m, const void *k);      /* NULL when absent */
void ptrmap_put(Arena *a, PtrMap *m, const void *k, void *v);

/* A string-keyed map (instances of generics by "f|2,3", derive grad's names). */
typedef struct {
    const char **keys;
    void **vals;
    int cap, n;
} StrMap;
void *strmap_get(const StrMap *m, const char *k);   /* NULL when absent */
void strmap_put(Arena *a, StrMap *m, const char *k, void *v);   /* replaces what k mapped to */
uint32_t str_hash(const char *s);                   /* FNV-1a */

/* ------------------------------------------------------------ building */

/* Well-formed nodes for passes that make code (derive grad): each gets the
 * builder's span, which the pass sets to the source node it derives from,
 * so a diagnostic about built code points at what it came from. Names are
 * left for the checker to resolve (node_name keeps the symbol it is given
 * and its id, which is what resolution looks up). */
typedef struct {
    Arena *arena;
    Span at;
} Build;

Node *node_int(Build *b, uint64_t v);
Node *node_bool(Build *b, bool v);
Node *node_ident(Build *b, const char *id);
Node *node_name(Build *b, Sym *s);
Node *node_unary(Build *b, TokKind op, Node *x);
Node *node_binary(Build *b, TokKind op, Node *l, Node *r);
Node *node_index(Build *b, Node *base, Node *index);
Node *node_call(Build *b, Node *callee, Node **args, int n);
Node *node_type(Build *b, const char *id);                          /* u64, f32, bool ... */
Node *node_view_type(Build *b, Access acc, Node *elem, Node *extent);
Node *node_let(Build *b, const char *id, bool mut, Node *type, Node *init);
Node *node_assign(Build *b, TokKind op, Node *lhs, Node *rhs);
Node *node_expr_stmt(Build *b, Node *e);
Node *node_return(Build *b, Node *e);                               /* e may be NULL */
Node *node_if(Build *b, Node *cond, Node *then, Node *els);
Node *node_for(Build *b, const char *var, Node *lo, Node *hi, Node *body);
Node *node_block(Build *b, Node **stmts, int n);
Node *node_param(Build *b, const char *id, Node *type);
Node *node_fn(Build *b, const char *id, Node **params, int n, Node *ret, Node *body);

/* The variable a view or a lent scalar comes from, through slices and let
 * bindings of views (a parameter, a buffer, a local); NULL when there is
 * none to name. */
Sym *view_root(Node *e);

/* The pipeline E names (an N_NAME of one), else NULL. */
Sym *pipeline_named(const Node *e);
/* E as a pipeline's operation (p.fill, p.wait, p.release, checked): its
 * pipeline's Sym, else NULL. */
Sym *pipe_op_of(const Node *e);
/* Whether E is a pipeline's fill (p.fill or p.fill_rows), and the name of
 * its argument i ("array", "start", ...). */
bool pipe_is_fill(const Node *e);
const char *pipe_fill_arg(const Node *e, int i);

#endif
