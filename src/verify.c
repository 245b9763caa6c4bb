/*
 * verify.c: the tree verifier, run after every pass in a CN_VERIFY build
 * (`make asan` defines it, so the suite's second run exercises it).
 *
 * Requires: the pass named after_pass reported no error.
 * Guarantees: returns only when the tree holds what the passes so far
 * guarantee (pass.c); otherwise die() with the pass, the node's kind and
 * its place, for a violation is our bug, never the user's:
 *   after parse     every node's kind is valid and its span lies inside its
 *                   source (line and column from 1, the line within the file);
 *   after resolve   every function to emit is in c->fns and every function
 *                   the program declares (not generic, not extern) is
 *                   among them; in their bodies every name has its symbol,
 *                   every expression a type that is neither TY_ERROR nor a
 *                   literal type, every call a kind (CALL_FN with a target).
 *                   A construct whose rules come later is refused only at
 *                   the deferred pass and left untyped until then, so while
 *                   such a refusal is held back (check.h, Deferred) the
 *                   bodies are checked from the deferred pass on, which the
 *                   program then never passes;
 *   after effects   every function of c->fns has its row.
 */
#include "check.h"
#include "pass.h"
#include "par.h"

#include <string.h>

typedef struct {
    const Check *c;
    const char *pass;
    const Source *src;
    int lines;            /* of src */
    bool typed;           /* resolve ran */
    const Node *kind_name;   /* the callee of the last fragment constructor seen (WmmaAcc[..](v)):
                                it names a fragment kind, which is no symbol */
} Verify;

_Noreturn static void bad(const Verify *v, const Node *n, const char *what)
{
    die("tree verifier, after %s: %s at %s %d:%d", v->pass, what, node_kind_name(n->kind),
        n->span.line, n->span.col);
}

static int count_lines(const Source *s)
{
    int n = 1;
    for (const char *p = s->text; p && (p = memchr(p, '\n', (size_t)(s->text + s->len - p))); p++)
        n++;
    return n;
}

static void check_span(Verify *v, const Node *n)
{
    const Source *s = n->span.src;
    if (!s)
        bad(v, n, "a span without a source");
    if (s != v->src) {
        v->src = s;
        v->lines = count_lines(s);
    }
    if (n->span.line < 1 || n->span.col < 1 || n->span.line > v->lines)
        bad(v, n, "a span outside its source");
}

static bool is_expr(NodeKind k)
{
    return k <= N_TASK;   /* NODE_KINDS lists the expressions first */
}

static void check_typed(Verify *v, const Node *n)
{
    if (n->kind == N_CALL && n->call.ck == CALL_BUILTIN && n->call.builtin == B_MMA_FILL)
        v->kind_name = n->call.callee;
    if (n->kind == N_NAME && !n->name.sym && n != v->kind_name)
        bad(v, n, "a name without its symbol");
    if (is_expr(n->kind) && (!n->ty || n->ty->kind == TY_ERROR || n->ty->kind == TY_INT_LIT ||
                             n->ty->kind == TY_FLOAT_LIT))
        bad(v, n, "an expression without a concrete type");
    if (n->kind == N_CALL && (n->call.ck == CALL_UNRESOLVED || (n->call.ck == CALL_FN && !n->call.target)))
        bad(v, n, "a call without its kind");
}

static bool verify_visit(Node *n, void *p)
{
    Verify *v = p;
    if ((unsigned)n->kind >= N_NKINDS)
        die("tree verifier, after %s: a node of kind %d", v->pass, (int)n->kind);
    check_span(v, n);
    return true;
}

/* Bodies of the functions to emit: what the checker typed. */
static bool typed_visit(Node *n, void *p)
{
    Verify *v = p;
    check_typed(v, n);
    return true;
}

static void check_fns(Verify *v)
{
    const Check *c = v->c;
    PtrSet listed = {0};
    for (int i = 0; i < c->fns.n; i++) {
        Node *fn = c->fns.v[i];
        if (!fn || fn->kind != N_FN)
            die("tree verifier, after %s: c->fns[%d] is no function", v->pass, i);
        ptrset_add(c->arena, &listed, fn);
        par_walk(fn->fn.body, typed_visit, v);
    }
    const Node *prog = c->program;
    for (int i = 0; i < prog->block.stmts.n; i++) {
        Node *d = prog->block.stmts.v[i];
        if (d && d->kind == N_FN && !d->fn.is_extern && !d->fn.generics.n && !ptrset_has(&listed, d))
            bad(v, d, "a function missing from c->fns");
    }
}

void verify_tree(const Check *c, const char *after_pass)
{
    Verify v = {c, after_pass, NULL, 0, false, NULL};
    if (!c->program)
        die("tree verifier, after %s: no program", after_pass);
    walk_tree(c->program, WALK_ALL, verify_visit, &v);
    if (!strcmp(after_pass, "parse"))
        return;
    if (!c->ctx || c->ctx->deferred.n == 0)
        check_fns(&v);
    for (int i = 0; c->effects && i < c->fns.n; i++)
        if (!effects_of(c->effects, c->fns.v[i]))
            bad(&v, c->fns.v[i], "a function without its effect row");
}
