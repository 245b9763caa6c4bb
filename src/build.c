/*
 * build.c: making nodes by hand, for passes that write code (walk.h).
 *
 * Requires: a builder with the compilation's arena and a span inside the
 * source (the node the new code derives from).
 * Guarantees: each node has its kind's members set as the parser would set
 * them for the same source text (operator tokens, literal text, ids), so
 * check_program resolves and types it, `cairn expand` prints it, and
 * parsing that print gives an equal tree. Checker annotations (types,
 * symbols, call kinds) are left for the checker, except the symbol
 * node_name is given.
 */
#include "walk.h"

#include <string.h>

static Node *make(Build *b, NodeKind k)
{
    return node_new(b->arena, k, b->at);
}

Node *node_int(Build *b, uint64_t v)
{
    Node *n = make(b, N_INT);
    n->lit.ival = v;
    n->lit.text = arena_printf(b->arena, "%llu", (unsigned long long)v);
    return n;
}

Node *node_bool(Build *b, bool v)
{
    Node *n = make(b, N_BOOL);
    n->lit.bval = v;
    n->lit.text = v ? "true" : "false";
    return n;
}

Node *node_ident(Build *b, const char *id)
{
    Node *n = make(b, N_NAME);
    n->name.id = arena_strdup(b->arena, id);
    return n;
}

Node *node_name(Build *b, Sym *s)
{
    Node *n = make(b, N_NAME);
    n->name.id = s->id;
    n->name.sym = s;
    return n;
}

Node *node_unary(Build *b, TokKind op, Node *x)
{
    Node *n = make(b, N_UNARY);
    n->unary.op = op;
    n->unary.a = x;
    return n;
}

Node *node_binary(Build *b, TokKind op, Node *l, Node *r)
{
    Node *n = make(b, N_BINARY);
    n->binary.op = op;
    n->binary.a = l;
    n->binary.b = r;
    return n;
}

Node *node_index(Build *b, Node *base, Node *index)
{
    Node *n = make(b, N_INDEX);
    n->index.base = base;
    n->index.index = index;
    return n;
}

static void push_all(Build *b, Vec *v, Node **xs, int n)
{
    for (int i = 0; i < n; i++)
        vec_push(b->arena, v, xs[i]);
}

Node *node_call(Build *b, Node *callee, Node **args, int n)
{
    Node *c = make(b, N_CALL);
    c->call.callee = callee;
    push_all(b, &c->call.args, args, n);
    return c;
}

Node *node_type(Build *b, const char *id)
{
    Node *t = make(b, N_TYPE);
    t->type.id = arena_strdup(b->arena, id);
    return t;
}

Node *node_view_type(Build *b, Access acc, Node *elem, Node *extent)
{
    Node *t = node_type(b, acc == ACC_RW ? "rw" : "ro");
    t->type.access = acc;
    t->type.elem = elem;
    t->type.extent = extent;
    return t;
}

Node *node_let(Build *b, const char *id, bool mut, Node *type, Node *init)
{
    Node *n = make(b, N_LET);
    n->let.id = arena_strdup(b->arena, id);
    n->let.mut = mut;
    n->let.type = type;
    n->let.init = init;
    return n;
}

Node *node_assign(Build *b, TokKind op, Node *lhs, Node *rhs)
{
    Node *n = make(b, N_ASSIGN);
    n->assign.op = op;
    n->assign.lhs = lhs;
    n->assign.rhs = rhs;
    return n;
}

Node *node_expr_stmt(Build *b, Node *e)
{
    Node *n = make(b, N_EXPR_STMT);
    n->unary.a = e;
    return n;
}

Node *node_return(Build *b, Node *e)
{
    Node *n = make(b, N_RETURN);
    n->unary.a = e;
    return n;
}

Node *node_if(Build *b, Node *cond, Node *then, Node *els)
{
    Node *n = make(b, N_IF);
    n->if_.cond = cond;
    n->if_.then = then;
    n->if_.els = els;
    return n;
}

Node *node_for(Build *b, const char *var, Node *lo, Node *hi, Node *body)
{
    Node *n = make(b, N_FOR);
    n->loop.var = arena_strdup(b->arena, var);
    n->loop.lo = lo;
    n->loop.hi = hi;
    n->loop.body = body;
    return n;
}

Node *node_block(Build *b, Node **stmts, int n)
{
    Node *blk = make(b, N_BLOCK);
    push_all(b, &blk->block.stmts, stmts, n);
    return blk;
}

Node *node_param(Build *b, const char *id, Node *type)
{
    Node *p = make(b, N_PARAM);
    p->param.id = arena_strdup(b->arena, id);
    p->param.type = type;
    return p;
}

Node *node_fn(Build *b, const char *id, Node **params, int n, Node *ret, Node *body)
{
    Node *f = make(b, N_FN);
    f->fn.id = arena_strdup(b->arena, id);
    push_all(b, &f->fn.params, params, n);
    f->fn.ret = ret;
    f->fn.body = body;
    return f;
}
