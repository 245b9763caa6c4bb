/*
 * grad.c: derive grad (numerics.md, "Gradients"; docs/numerics.md here):
 * `derive grad for f;` and `derive grad[w, b] for f;` write f_grad, the
 * reverse-mode derivative of f, as an ordinary function: a tree built with
 * build.c's nodes, which the checker then checks like user code.
 *
 *   grad_signature   f_grad's parameters: f's, then `seed` (f returns a
 *                    float), then d_x:rw<T> for each differentiated scalar
 *                    and d_x:rw<T>[n] for each differentiated view
 *   grad_body        its body, from f's typed body: f's statements as they
 *                    are (the forward run), and at each return its own
 *                    backward sweep: the result kept, an adjoint for each
 *                    float let on the path, seed pushed back through the
 *                    returned expression, then through each let's value in
 *                    reverse order, every partial added into an adjoint
 *
 * No tape: a sweep recomputes what it needs from the lets on its path,
 * which are immutable. The forms (this increment): immutable lets, an if
 * whose paths return, + - * /, unary -, sqrt, abs (derivative 1 at zero),
 * floor, ceil and trunc (0), f32 <-> f64, std.math.exp and std.math.log,
 * `reduce + for` sums (a loop adding each term's adjoint), and calls of
 * functions with a gradient of their own. Anything else is E-GRAD-FORM; a
 * call of a function without a matching gradient is E-GRAD-CALL. Regions,
 * pooled sums and functions that write views come in the next increment
 * (refused E-UNSUPPORTED until then, not guessed).
 *
 * Requires: f checked (its names resolved, its expressions typed).
 * Guarantees: a tree the checker resolves as it resolves parsed code.
 */
#include "check.h"
#include "sym.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    Ctx *x;
    Build b;
    Node *f;
    Node *derive;
    PtrSet diff;          /* Sym*: f's differentiated parameters */
    StrMap names;         /* every name f uses, and each made here: fresh ones avoid them */
    StrMap adj;           /* a differentiated parameter's or a float let's id -> its adjoint's id */
    PtrSet outs;          /* Sym*: f's rw float views, each written once, with a d_out adjoint */
    StrMap dout;          /* an rw float view's id -> its d_out's id */
    PtrMap sums;          /* a summing float let mut (N_LET) -> the one loop that adds into it */
    PtrSet active;        /* Sym*: the float lets whose value reaches a differentiated parameter (a let
                             of data alone, f32(cols), gets no sweep through its value) */
    bool failed;
} Grad;

/* ------------------------------------------------------------ names */

static bool names_visit(Node *n, void *c)
{
    Grad *g = c;
    const char *id = n->kind == N_NAME ? n->name.id : n->kind == N_LET ? n->let.id
                   : n->kind == N_FOR || n->kind == N_PARALLEL ? n->loop.var
                   : n->kind == N_COLLECT ? n->collect.var : NULL;
    if (id)
        strmap_put(g->x->a, &g->names, id, (void *)1);
    return true;
}

/* A name f does not use and no other made here has: stem, stem_2, ... */
static const char *fresh(Grad *g, const char *stem)
{
    const char *id = stem;
    for (int k = 2; strmap_get(&g->names, id); k++)
        id = arena_printf(g->x->a, "%s_%d", stem, k);
    strmap_put(g->x->a, &g->names, id, (void *)1);
    return id;
}

static Node *name(Grad *g, const char *id)
{
    return node_ident(&g->b, id);
}

/* ------------------------------------------------------------ refusals */

static void refuse(Grad *g, Node *at, DiagCode code, const char *help, const char *what)
{
    if (g->failed)
        return;
    g->failed = true;
    diag_error(g->x->sink, at->span, code, help, "derive grad for %s: %s", g->f->fn.id, what);
}

static bool is_float(const Type *t)
{
    return t && (t->kind == TY_F32 || t->kind == TY_F64);
}

/* What a differentiated parameter is: a float scalar or a view of floats. */
static bool differentiable(const Type *t)
{
    return is_float(t) || (t && t->kind == TY_VIEW && t->access == ACC_RO && is_float(t->elem));
}

/* ------------------------------------------------------------ the signature */

static Node *float_type(Grad *g, const Type *t)
{
    return node_type(&g->b, t->kind == TY_F32 ? "f32" : "f64");
}

/* f's parameters named in the list (or every differentiable one), after
 * E-GRAD for a name that is none of them or not a float. */
static bool pick_params(Grad *g)
{
    Node *d = g->derive, *f = g->f;
    if (d->derive.has_list) {
        for (int i = 0; i < d->derive.only.n; i++) {
            const char *id = d->derive.only.v[i];
            Node *p = NULL;
            for (int k = 0; k < f->fn.params.n && !p; k++)
                if (!strcmp(((Node *)f->fn.params.v[k])->param.id, id))
                    p = f->fn.params.v[k];
            if (!p) {
                refuse(g, d, E_GRAD, arena_printf(g->x->a, "name parameters of %s", f->fn.id),
                       arena_printf(g->x->a, "%s has no parameter %s", f->fn.id, id));
                return false;
            }
            if (!differentiable(p->param.sym->ty)) {
                refuse(g, d, E_GRAD, "differentiate f32 and f64 parameters and ro views of them",
                       arena_printf(g->x->a, "%s is %s, not a float or an ro view of floats", id,
                                    type_str(g->x->a, p->param.sym->ty)));
                return false;
            }
            ptrset_add(g->x->a, &g->diff, p->param.sym);
        }
        return true;
    }
    for (int k = 0; k < f->fn.params.n; k++) {
        Node *p = f->fn.params.v[k];
        if (p->param.sym && differentiable(p->param.sym->ty))
            ptrset_add(g->x->a, &g->diff, p->param.sym);
    }
    if (g->diff.n == 0)
        refuse(g, d, E_GRAD, "give it a float parameter or an ro view of floats",
               arena_printf(g->x->a, "%s has no float parameter to differentiate", f->fn.id));
    return g->diff.n > 0;
}

static void grad_init(Grad *g, Ctx *x, Node *derive, Node *f)
{
    memset(g, 0, sizeof *g);
    g->x = x;
    g->b = (Build){x->a, derive->span};
    g->f = f;
    g->derive = derive;
    walk_tree(f, WALK_ALL, names_visit, g);
    for (int k = 0; k < f->fn.params.n; k++)
        strmap_put(x->a, &g->names, ((Node *)f->fn.params.v[k])->param.id, (void *)1);
}

/* f_grad as an N_FN with its parameters and result, no body yet; NULL after
 * an E-GRAD. The adjoints' names go into g->adj. */
static Node *signature(Grad *g)
{
    Node *f = g->f;
    Type *ret = f->fn.sym && f->fn.sym->ty && f->fn.sym->ty->kind == TY_FN ? f->fn.sym->ty->ret : NULL;
    for (int k = 0; k < f->fn.params.n; k++) {
        Node *p = f->fn.params.v[k];
        const Type *t = p->param.sym->ty;
        if (t && t->kind == TY_VIEW && t->access == ACC_RW && is_float(t->elem))
            ptrset_add(g->x->a, &g->outs, p->param.sym);
    }
    if (!is_float(ret) && g->outs.n == 0) {
        refuse(g, g->derive, E_GRAD, "differentiate a function that returns f32 or f64, or writes a float view",
               arena_printf(g->x->a, "%s returns %s and writes no float view: there is nothing to differentiate",
                            f->fn.id, ret && ret->kind != TY_VOID ? type_str(g->x->a, ret) : "nothing"));
        return NULL;
    }
    if (!pick_params(g))
        return NULL;
    Vec ps = {0};
    for (int k = 0; k < f->fn.params.n; k++) {
        Node *p = f->fn.params.v[k];
        vec_push(g->x->a, &ps, node_param(&g->b, p->param.id, ast_clone(g->x->a, p->param.type)));
    }
    if (is_float(ret))
        vec_push(g->x->a, &ps, node_param(&g->b, fresh(g, "seed"), float_type(g, ret)));
    for (int k = 0; k < f->fn.params.n; k++) {
        Node *p = f->fn.params.v[k];
        if (!ptrset_has(&g->diff, p->param.sym))
            continue;
        const char *id = fresh(g, arena_printf(g->x->a, "d_%s", p->param.id));
        strmap_put(g->x->a, &g->adj, p->param.id, (void *)id);
        Node *t = ast_clone(g->x->a, p->param.type);
        if (t->kind == N_TYPE && t->type.access == ACC_RO) {
            t->type.access = ACC_RW;
            t->type.id = "rw";
        } else {
            t = node_view_type(&g->b, ACC_RW, float_type(g, p->param.sym->ty), NULL);
        }
        vec_push(g->x->a, &ps, node_param(&g->b, id, t));
    }
    for (int k = 0; k < f->fn.params.n; k++) {   /* d_out:ro<T>[n] for each float view f writes */
        Node *p = f->fn.params.v[k];
        if (!ptrset_has(&g->outs, p->param.sym))
            continue;
        Node *t = ast_clone(g->x->a, p->param.type);
        t->type.access = ACC_RO;
        t->type.id = "ro";
        vec_push(g->x->a, &ps, node_param(&g->b, fresh(g, arena_printf(g->x->a, "d_%s", p->param.id)), t));
    }
    Node *fn = node_fn(&g->b, arena_printf(g->x->a, "%s_grad", f->fn.id), (Node **)ps.v, ps.n,
                       ast_clone(g->x->a, f->fn.ret), NULL);
    fn->fn.derived = true;
    return fn;
}

Node *grad_signature(Ctx *x, Node *derive, Node *f)
{
    Grad g;
    grad_init(&g, x, derive, f);
    return signature(&g);
}


static Node *node_float(Grad *g, const char *text)
{
    Node *n = node_new(g->x->a, N_FLOAT, g->b.at);
    n->lit.text = text;
    n->lit.fval = strtod(text, NULL);
    return n;
}

static Node *node_float0(Grad *g)
{
    return node_float(g, "0.0");
}

static Node *node_type_name(Grad *g, const Type *t)
{
    return name(g, t->kind == TY_F32 ? "f32" : "f64");
}

/* buffer id:T[n] = zeroed; */
static Node *node_buffer(Grad *g, const char *id, const Type *elem, Node *n)
{
    Node *b = node_new(g->x->a, N_BUFFER, g->b.at);
    b->buffer.id = id;
    b->buffer.elem = float_type(g, elem);
    b->buffer.size = n;
    b->buffer.zeroed = true;
    b->buffer.place = PLACE_HOST;
    return b;
}


/* parallel var in n { body } */
static Node *node_region(Grad *g, const char *var, Node *n, Node *body)
{
    Node *r = node_new(g->x->a, N_PARALLEL, g->b.at);
    r->loop.var = var;
    r->loop.hi = n;
    r->loop.body = body;
    return r;
}

/* ------------------------------------------------------------ the sweep */

typedef struct Sweep Sweep;
static void emit_region(Sweep *s, const char *var, const char *turn, Node *n, Node *body, const Vec *parts,
                        Placement place, bool turns);


struct Sweep {
    Grad *g;
    Vec *out;             /* Node*: the statements being written */
    const Sym *lane;      /* in a region's backward lane: the lane's name (NULL elsewhere) */
    Node *own;            /* ... and the index of the element the lane writes */
    PtrSet *locals;       /* ... and the names its own body binds (lets, loop counters) */
    Vec *parts;           /* ... and, per scalar adjoint its lanes add into, (adjoint id, part buffer id,
                             its Type): each lane adds into its own element of the part, summed after */
    const char *turn;     /* ... and the name of the backward region's lane, which indexes the parts
                             (emit_region: a lane of it takes the lanes t * P + turn in turn) */
};

static void emit(Sweep *s, Node *st)
{
    vec_push(s->g->x->a, s->out, st);
}

static Node *clone(Grad *g, const Node *e)
{
    return ast_clone(g->x->a, e);
}

/* A local holding e, named from stem: the adjoint expressions are used
 * more than once, and a name is cheaper than the tree twice. */
static const char *bind(Sweep *s, const char *stem, Node *e)
{
    const char *id = fresh(s->g, stem);
    emit(s, node_let(&s->g->b, id, false, NULL, e));
    return id;
}

/* The lanes of a backward region with part buffers: at most this many
 * parts, so a scalar's shares cost a constant memory (2 MiB of f64), not an
 * element for each of f's lanes. Where f's lanes are a nest's (a row or a
 * column each), taking them in turn would hide from the race rule that the
 * lanes' elements are apart (a column j = t * P + turn of `y[r * cols +
 * j]` is no longer a residue class the rule proves), so there each of f's
 * lanes keeps its part element: one for each row or column f writes. */
enum { PART_LANES = 1 << 18 };


/* After a backward region, each part summed exactly into its adjoint. */
static void emit_part_sums(Sweep *s, const char *turn, Node *n, const Vec *parts)
{
    Grad *g = s->g;
    for (int i = 0; i + 2 < parts->n; i += 3) {
        Node *sum = node_new(g->x->a, N_COLLECT, g->b.at);
        sum->collect.kind = COLLECT_REDUCE;
        sum->collect.op = "+";
        sum->collect.mode = MODE_PARALLEL;
        sum->collect.var = turn;
        sum->collect.extent = clone(g, n);
        sum->collect.value = node_index(&g->b, name(g, parts->v[i + 1]), name(g, turn));
        emit(s, node_assign(&g->b, T_PLUSEQ, name(g, parts->v[i]), sum));
    }
}

/* A backward region. Without part buffers, f's region again: `parallel var
 * in n { body }`. With them (scalars every lane owes a share), P = min(n,
 * PART_LANES) lanes, lane `turn` taking f's lanes turn, turn + P, ... in
 * turn (adjacent lanes at adjacent elements, as a device wants them), each
 * adding its shares into its own element of each part (zeroed, in the
 * region's memory); after the region an exact reduce + parallel of each
 * part adds it into its scalar's adjoint. Each part's element sums its
 * shares in one fixed order, so the result does not depend on how lanes
 * are scheduled. */
static void emit_region(Sweep *s, const char *var, const char *turn, Node *n, Node *body, const Vec *parts,
                        Placement place, bool turns)
{
    Grad *g = s->g;
    if (parts->n == 0) {
        emit(s, node_region(g, var, n, body));
        return;
    }
    if (!turns) {   /* a part element for each of f's lanes */
        for (int i = 0; i + 2 < parts->n; i += 3) {
            Node *b = node_buffer(g, parts->v[i + 1], parts->v[i + 2], clone(g, n));
            b->buffer.place = place;
            b->buffer.place_written = place != PLACE_HOST;
            emit(s, b);
        }
        emit(s, node_region(g, turn, clone(g, n), node_block(&g->b, (Node *[]){
            node_let(&g->b, var, false, NULL, name(g, turn)), body}, 2)));
        emit_part_sums(s, turn, n, parts);
        return;
    }
    const char *p = bind(s, "lanes", node_call(&g->b, name(g, "min"),
                                               (Node *[]){n, node_int(&g->b, PART_LANES)}, 2));
    for (int i = 0; i + 2 < parts->n; i += 3) {
        Node *b = node_buffer(g, parts->v[i + 1], parts->v[i + 2], name(g, p));
        b->buffer.place = place;
        b->buffer.place_written = place != PLACE_HOST;
        emit(s, b);
    }
    /* for t in 0..(n - turn + P - 1) / P { let var = t * P + turn; body } */
    const char *t = fresh(g, "t");
    Node *trips = node_binary(&g->b, T_SLASH,
                              node_binary(&g->b, T_MINUS,
                                          node_binary(&g->b, T_PLUS, node_binary(&g->b, T_MINUS, clone(g, n), name(g, turn)),
                                                      name(g, p)),
                                          node_int(&g->b, 1)),
                              name(g, p));
    Node *at = node_let(&g->b, var, false, NULL,
                        node_binary(&g->b, T_PLUS, node_binary(&g->b, T_STAR, name(g, t), name(g, p)), name(g, turn)));
    Node *inner = node_block(&g->b, (Node *[]){at, body}, 2);
    Node *loop = node_for(&g->b, t, node_int(&g->b, 0), trips, inner);
    emit(s, node_region(g, turn, name(g, p), node_block(&g->b, &loop, 1)));
    emit_part_sums(s, turn, name(g, p), parts);
}

/* Does e reach a differentiated parameter or a float let (whose adjoint
 * may lead to one)? A part that does not contributes nothing. */
typedef struct {
    Grad *g;
    bool found;
} Reach;

static bool depends_visit(Node *n, void *c)
{
    Reach *r = c;
    if (n->kind == N_NAME && n->name.sym &&
        (ptrset_has(&r->g->diff, n->name.sym) || ptrset_has(&r->g->active, n->name.sym)))
        r->found = true;
    return !r->found;
}

static bool reaches(Grad *g, Node *e)
{
    Reach r = {g, false};
    if (e)
        walk_tree(e, WALK_CODE, depends_visit, &r);
    return r.found;
}

static bool depends(Sweep *s, Node *e)
{
    return reaches(s->g, e);
}

/* A float let enters the sweep: active where its value reaches a
 * differentiated parameter (a summing let mut always: its loop adds terms
 * its start does not show). */
static void let_active(Grad *g, Node *l)
{
    if (l->let.sym && (l->let.mut || reaches(g, l->let.init)))
        ptrset_add(g->x->a, &g->active, l->let.sym);
}

static void back(Sweep *s, Node *e, const char *adj);

typedef struct {
    const PtrSet *set;
    bool found;
} Binds;

static bool binds_visit(Node *n, void *c)
{
    Binds *b = c;
    if (n->kind == N_NAME && n->name.sym && ptrset_has(b->set, n->name.sym))
        b->found = true;
    return !b->found;
}

/* Does e read a name in set (a lane's own lets and counters)? */
static bool binds_any(Node *e, const PtrSet *set)
{
    Binds b = {set, false};
    if (set && e)
        walk_tree(e, WALK_CODE, binds_visit, &b);
    return b.found;
}

/* adj times e's partial in a, pushed back into a. */
static void back_scaled(Sweep *s, Node *a, TokKind op, const char *adj, Node *by)
{
    if (!depends(s, a))
        return;
    back(s, a, bind(s, "g", node_binary(&s->g->b, op, name(s->g, adj), by)));
}

/* The adjoint's additions into a differentiated parameter, an element of
 * a differentiated view, or a float let. */
static void add_into(Sweep *s, Node *target, const char *adj)
{
    emit(s, node_assign(&s->g->b, T_PLUSEQ, target, name(s->g, adj)));
}

static void back_call(Sweep *s, Node *e, const char *adj);

static void back(Sweep *s, Node *e, const char *adj)
{
    Grad *g = s->g;
    if (g->failed || !e)
        return;
    switch (e->kind) {
    case N_INT: case N_FLOAT: return;
    case N_NAME: {
        const char *a = strmap_get(&g->adj, e->name.id);
        if (!a || !e->name.sym || !(ptrset_has(&g->diff, e->name.sym) || e->name.sym->kind == SYM_LOCAL))
            return;
        if (s->lane && !ptrset_has(s->locals, e->name.sym)) {   /* every lane reads it: a part a lane */
            const char *part = NULL;
            for (int i = 0; i + 2 < s->parts->n && !part; i += 3)
                if (!strcmp(s->parts->v[i], a))
                    part = s->parts->v[i + 1];
            if (!part) {
                part = fresh(g, arena_printf(g->x->a, "part_%s", a));
                vec_push(g->x->a, s->parts, (void *)a);
                vec_push(g->x->a, s->parts, (void *)part);
                vec_push(g->x->a, s->parts, (void *)e->ty);
            }
            add_into(s, node_index(&g->b, name(g, part), name(g, s->turn)), adj);
            return;
        }
        add_into(s, name(g, a), adj);
        return;
    }
    case N_INDEX: {
        Sym *root = view_root(e->index.base);
        const char *a = root ? strmap_get(&g->adj, root->id) : NULL;
        if (!a || !ptrset_has(&g->diff, root))
            return;   /* data: no adjoint */
        Node *ix = e->index.index;
        bool lane_made = s->lane && binds_any(ix, s->locals);
        if (s->lane && !(ix->kind == N_NAME && ix->name.sym == s->lane) && !(s->own && ast_equal(ix, s->own)) &&
            !lane_made) {
            refuse(g, e, E_GRAD_RACE, arena_printf(g->x->a, "read %s at [%s] in the region, or differentiate a "
                                                            "sequential loop", root->id, s->lane->id),
                   arena_printf(g->x->a, "the adjoint of %s adds into %s at another lane's element",
                                expand_expr_short(g->x->a, e, 40), a));
            return;
        }
        if (e->index.base->kind != N_NAME) {
            refuse(g, e, E_GRAD_FORM, "index the differentiated view itself, not a part of it",
                   arena_printf(g->x->a, "%s reads a part of %s", expand_expr_short(g->x->a, e, 40), root->id));
            return;
        }
        /* an index the lane computes (a row r * cols + j of a lane's own row): where another lane
         * adds into the same element, the race rule, checking f_grad, refuses it as E-GRAD-RACE at
         * this read */
        Node *into = node_index(&g->b, name(g, a), clone(g, e->index.index));
        if (lane_made) {
            into->span = e->span;
            into->index.adjoint_of = e;
            into->index.adjoint_fn = g->f->fn.id;
        }
        add_into(s, into, adj);
        return;
    }
    case N_UNARY:
        if (e->unary.op == T_MINUS && is_float(e->ty)) {
            if (depends(s, e->unary.a))
                back(s, e->unary.a, bind(s, "g", node_unary(&g->b, T_MINUS, name(g, adj))));
            return;
        }
        break;
    case N_BINARY: {
        Node *a = e->binary.a, *b = e->binary.b;
        if (!is_float(e->ty))
            break;
        switch (e->binary.op) {
        case T_PLUS:
            back(s, a, adj);
            back(s, b, adj);
            return;
        case T_MINUS:
            back(s, a, adj);
            if (depends(s, b))
                back(s, b, bind(s, "g", node_unary(&g->b, T_MINUS, name(g, adj))));
            return;
        case T_STAR:
            back_scaled(s, a, T_STAR, adj, clone(g, b));
            back_scaled(s, b, T_STAR, adj, clone(g, a));
            return;
        case T_SLASH:   /* d(a / b) = da / b - a db / b^2 */
            back_scaled(s, a, T_SLASH, adj, clone(g, b));
            if (depends(s, b))
                back(s, b, bind(s, "g", node_unary(&g->b, T_MINUS,
                                                   node_binary(&g->b, T_SLASH,
                                                               node_binary(&g->b, T_STAR, name(g, adj), clone(g, a)),
                                                               node_binary(&g->b, T_STAR, clone(g, b), clone(g, b))))));
            return;
        default:
            break;
        }
        break;
    }
    case N_CALL:
        back_call(s, e, adj);
        return;
    case N_COLLECT:
        if (e->collect.kind == COLLECT_REDUCE && e->collect.op && !strcmp(e->collect.op, "+") &&
            e->collect.mode != MODE_WARP && !e->collect.keep && !e->collect.dest && is_float(e->ty)) {
            /* each term's adjoint is the sum's: a loop over the terms, or for a pooled sum a region in
             * which each lane adds into its own elements */
            Vec body = {0}, parts = {0};
            PtrSet locals = {0};
            /* a `for` sum over @device views runs on the device too: its backward is a region there */
            bool pooled = e->collect.mode == MODE_PARALLEL || (e->collect.device && !s->lane);
            Sweep in = *s;
            in.out = &body;
            if (pooled) {
                in.lane = e->collect.sym;
                in.own = NULL;
                in.locals = &locals;
                in.parts = &parts;
                in.turn = fresh(g, "turn");
            } else if (s->lane) {
                ptrset_add(g->x->a, s->locals, e->collect.sym);   /* a sum inside a lane: its counter is the lane's */
            }
            back(&in, e->collect.value, adj);
            Node *blk = node_block(&g->b, (Node **)body.v, body.n);
            if (pooled)
                emit_region(s, e->collect.var, in.turn, clone(g, e->collect.extent), blk, &parts,
                            e->collect.device ? PLACE_DEVICE : PLACE_HOST, true);
            else
                emit(s, node_for(&g->b, e->collect.var, node_int(&g->b, 0), clone(g, e->collect.extent), blk));
            return;
        }
        break;
    default:
        break;
    }
    refuse(g, e, E_GRAD_FORM, "derive grad takes lets, returns, if, + - * /, sqrt, abs, floor, ceil, trunc, "
           "f32/f64 conversions, std.math.exp and log, reduce + sums and calls of derived functions",
           arena_printf(g->x->a, "%s is not a form derive grad differentiates", expand_expr_short(g->x->a, e, 40)));
}

/* The derive that makes `id`_grad, or NULL. */
static Node *derive_of(Grad *g, const char *id)
{
    const Node *prog = g->x->c->program;
    for (int i = 0; i < prog->block.stmts.n; i++) {
        Node *d = prog->block.stmts.v[i];
        if (d && d->kind == N_DERIVE && d->derive.target && !strcmp(d->derive.target, id))
            return d;
    }
    return NULL;
}

/* Whether callee's derive differentiates its parameter p. */
static bool derive_takes(const Node *d, const Node *p)
{
    if (!d->derive.has_list)
        return differentiable(p->param.sym ? p->param.sym->ty : NULL);
    for (int i = 0; i < d->derive.only.n; i++)
        if (!strcmp(d->derive.only.v[i], p->param.id))
            return true;
    return false;
}

/* h(args) where h has a gradient of its own: h_grad(args, adj, adjoints),
 * a scalar's adjoint into a local then pushed back into its argument, a
 * view f differentiates given f's own adjoint (h_grad adds into it), a view
 * of data a scratch adjoint. An argument that carries a gradient into a
 * parameter h's derive leaves out is E-GRAD-CALL. */
static void back_derived(Sweep *s, Node *e, Node *h, Node *d, const char *adj)
{
    Grad *g = s->g;
    Vec args = {0}, later = {0};   /* later: (argument, local) pairs to push back after the call */
    for (int i = 0; i < e->call.args.n; i++)
        vec_push(g->x->a, &args, clone(g, e->call.args.v[i]));
    vec_push(g->x->a, &args, name(g, adj));
    for (int i = 0; i < h->fn.params.n && i < e->call.args.n; i++) {
        Node *p = h->fn.params.v[i], *a = e->call.args.v[i];
        const Type *t = p->param.sym ? p->param.sym->ty : NULL;
        if (!derive_takes(d, p)) {
            if (t && differentiable(t) && depends(s, a))
                refuse(g, a, E_GRAD_CALL, arena_printf(g->x->a, "list %s in `derive grad[...] for %s;`", p->param.id,
                                                       h->fn.id),
                       arena_printf(g->x->a, "%s carries a gradient into %s's parameter %s, which %s_grad does not "
                                             "differentiate", expand_expr_short(g->x->a, a, 40), h->fn.id, p->param.id,
                                    h->fn.id));
            continue;
        }
        if (is_float(t)) {
            const char *id = fresh(g, arena_printf(g->x->a, "d_%s", p->param.id));
            emit(s, node_let(&g->b, id, true, float_type(g, t), node_float0(g)));
            vec_push(g->x->a, &args, name(g, id));
            vec_push(g->x->a, &later, a);
            vec_push(g->x->a, &later, (void *)id);
            continue;
        }
        Sym *root = view_root(a);
        if (a->kind == N_NAME && root && ptrset_has(&g->diff, root)) {
            vec_push(g->x->a, &args, name(g, strmap_get(&g->adj, root->id)));
        } else if (!depends(s, a)) {   /* data: its gradient goes nowhere */
            const char *id = fresh(g, "scratch");
            Node *buf = node_buffer(g, id, t->elem, node_call(&g->b, name(g, "len"), (Node *[]){clone(g, a)}, 1));
            emit(s, buf);
            vec_push(g->x->a, &args, name(g, id));
        } else {
            refuse(g, a, E_GRAD_CALL, "pass the differentiated view itself",
                   arena_printf(g->x->a, "%s passes a part of a differentiated view to %s", expand_expr_short(g->x->a, a, 40),
                                h->fn.id));
            return;
        }
    }
    Node *call = node_call(&g->b, name(g, arena_printf(g->x->a, "%s_grad", h->fn.id)), (Node **)args.v, args.n);
    bind(s, "r", call);   /* h's value, which the sweep does not need */
    for (int i = 0; i + 1 < later.n; i += 2)
        back(s, later.v[i], later.v[i + 1]);
}

static void back_call(Sweep *s, Node *e, const char *adj)
{
    Grad *g = s->g;
    Node *a0 = e->call.args.n ? e->call.args.v[0] : NULL;
    switch (e->call.ck) {
    case CALL_BUILTIN:
        switch ((Builtin)e->call.builtin) {
        case B_FLOOR: case B_CEIL: case B_TRUNC: return;   /* derivative 0 */
        case B_SQRT:   /* d sqrt(a) = da / (2 sqrt(a)) */
            back_scaled(s, a0, T_SLASH, adj, node_binary(&g->b, T_STAR, node_float(g, "2.0"), clone(g, e)));
            return;
        case B_ABS: {   /* d |a| = da for a >= 0 (1 at zero), -da below */
            if (!depends(s, a0) || !is_float(e->ty))
                break;
            Vec neg = {0}, pos = {0};
            Sweep sn = *s, sp = *s;   /* in a lane, the lane's branches */
            sn.out = &neg;
            sp.out = &pos;
            back(&sn, a0, bind(&sn, "g", node_unary(&g->b, T_MINUS, name(g, adj))));
            back(&sp, a0, adj);
            emit(s, node_if(&g->b, node_binary(&g->b, T_LT, clone(g, a0), node_float0(g)),
                            node_block(&g->b, (Node **)neg.v, neg.n), node_block(&g->b, (Node **)pos.v, pos.n)));
            return;
        }
        default:
            break;
        }
        break;
    case CALL_CONVERT:   /* f64(a) of an f32, f32(a) of an f64: the adjoint converted back */
        if (!a0 || !is_float(a0->ty) || !is_float(e->ty))
            return;   /* from an integer: nothing to push back */
        if (depends(s, a0))
            back(s, a0, bind(s, "g", node_call(&g->b, node_type_name(g, a0->ty), (Node *[]){name(g, adj)}, 1)));
        return;
    case CALL_MATH:
        if (e->call.math && !strcmp(e->call.math, "exp")) {   /* d exp(a) = exp(a) da */
            back_scaled(s, a0, T_STAR, adj, clone(g, e));
            return;
        }
        if (e->call.math && !strcmp(e->call.math, "log")) {   /* d log(a) = da / a */
            back_scaled(s, a0, T_SLASH, adj, clone(g, a0));
            return;
        }
        break;
    case CALL_FN: {
        Node *h = e->call.target;
        Node *d = h && h->fn.id ? derive_of(g, h->fn.id) : NULL;
        if (d) {
            back_derived(s, e, h, d, adj);
            return;
        }
        bool carries = false;
        for (int i = 0; i < e->call.args.n && !carries; i++)
            carries = is_float(((Node *)e->call.args.v[i])->ty) || differentiable(((Node *)e->call.args.v[i])->ty)
                          ? depends(s, e->call.args.v[i]) : false;
        if (!carries)
            return;   /* a value of data alone */
        refuse(g, e, E_GRAD_CALL, arena_printf(g->x->a, "write `derive grad for %s;`", h ? h->fn.id : "it"),
               arena_printf(g->x->a, "%s has no derived gradient, and its arguments carry one",
                            expand_expr_short(g->x->a, e, 40)));
        return;
    }
    default:
        break;
    }
    refuse(g, e, E_GRAD_FORM, "derive grad takes lets, returns, if, + - * /, sqrt, abs, floor, ceil, trunc, "
           "f32/f64 conversions, std.math.exp and log, reduce + sums and calls of derived functions",
           arena_printf(g->x->a, "%s is not a form derive grad differentiates", expand_expr_short(g->x->a, e, 40)));
}

/* ------------------------------------------------------------ the body */

/* The lets of a lane's or a loop's body, and what ends it: the one write
 * of an output view (`out[i] = e`), or one for loop whose body is of this
 * form in turn (a nest: a lane per row, a loop over its columns). NULL
 * (after E-GRAD-FORM) for anything else. */
static Node *one_write(Grad *g, Node *body, Vec *lets)
{
    Node *w = NULL;
    for (int i = 0; body && i < body->block.stmts.n && !g->failed; i++) {
        Node *st = body->block.stmts.v[i];
        if (st->kind == N_LET && !st->let.mut && !w) {
            vec_push(g->x->a, lets, st);
            continue;
        }
        Node *l = st->kind == N_ASSIGN ? st->assign.lhs : NULL;
        if (!w && l && st->assign.op == T_ASSIGN && l->kind == N_INDEX && ptrset_has(&g->outs, view_root(l->index.base))) {
            w = st;
            continue;
        }
        if (!w && st->kind == N_FOR && st->loop.body) {   /* a nest: its body is of this form in turn */
            w = st;
            continue;
        }
        refuse(g, st, E_GRAD_FORM, "write each output element once: lets, then `out[i] = e;` or a loop of that form",
               "a loop or region derive grad differentiates holds lets and one write of an output view (or one loop "
               "around it), and this statement is neither");
    }
    if (!w && !g->failed)
        refuse(g, body, E_GRAD_FORM, "end it with `out[i] = e;`", "the loop or region writes no output view");
    return g->failed ? NULL : w;
}

/* A let's adjoint local, zero, into out; its id into g->adj. */
static void let_adjoint(Sweep *s, Node *l)
{
    Grad *g = s->g;
    const char *a = fresh(g, arena_printf(g->x->a, "d_%s", l->let.id));
    emit(s, node_let(&g->b, a, true, float_type(g, l->let.sym->ty), node_float0(g)));
    strmap_put(g->x->a, &g->adj, l->let.id, (void *)a);
}

/* The body of a loop that adds into a summing let mut: immutable lets,
 * then `acc += e`. The add; NULL when the loop is something else. */
static Node *sum_body(Grad *g, Node *loop, Vec *lets)
{
    Node *b = loop->loop.body, *add = NULL;
    for (int i = 0; b && i < b->block.stmts.n; i++) {
        Node *st = b->block.stmts.v[i];
        if (st->kind == N_LET && !st->let.mut && !add) {
            vec_push(g->x->a, lets, st);
            continue;
        }
        if (!add && st->kind == N_ASSIGN && st->assign.op == T_PLUSEQ && st->assign.lhs->kind == N_NAME) {
            add = st;
            continue;
        }
        return NULL;
    }
    return add;
}

typedef struct {
    const Sym *sym;
    bool found;
} Reads;

static bool reads_visit(Node *n, void *c)
{
    Reads *r = c;
    if (n->kind == N_NAME && n->name.sym == r->sym)
        r->found = true;
    return !r->found;
}

static bool reads_sym(Node *n, const Sym *sym)
{
    Reads r = {sym, false};
    if (n)
        walk_tree(n, WALK_CODE, reads_visit, &r);
    return r.found;
}

/* A summing let mut read before its loop has added every term: what f
 * computes there is its start alone, which its adjoint would not say. */
static bool read_early(Grad *g, Node *st, const Vec *lets)
{
    for (int i = 0; i < lets->n; i++) {
        Node *l = lets->v[i];
        if (!l->let.mut || ptrmap_get(&g->sums, l) || !reads_sym(st, l->let.sym))
            continue;
        refuse(g, st, E_GRAD_FORM, arena_printf(g->x->a, "read %s after the loop that sums into it", l->let.id),
               arena_printf(g->x->a, "%s is read or assigned before one loop's `%s += e` has added every term",
                            l->let.id, l->let.id));
        return true;
    }
    return false;
}

/* The summing let mut a loop adds into (recorded on the path), or NULL. */
static Node *summed(Grad *g, Node *loop, const Vec *lets)
{
    if (loop->kind != N_FOR)
        return NULL;
    Vec ls = {0};
    Node *add = sum_body(g, loop, &ls);
    if (!add)
        return NULL;
    for (int i = 0; i < lets->n; i++) {
        Node *l = lets->v[i];
        if (!l->let.mut || l->let.sym != add->assign.lhs->name.sym)
            continue;
        bool again = reads_sym(add->assign.rhs, l->let.sym);   /* acc += acc * x: no longer a sum */
        for (int k = 0; k < ls.n && !again; k++)
            again = reads_sym(((Node *)ls.v[k])->let.init, l->let.sym);
        if (again) {
            refuse(g, loop, E_GRAD_FORM, arena_printf(g->x->a, "add terms that do not read %s", l->let.id),
                   arena_printf(g->x->a, "the loop reads %s while it sums into it: not a sum", l->let.id));
            return NULL;
        }
        return l;
    }
    return NULL;
}

/* A loop body's or lane's lets recomputed, each float one with a zero
 * adjoint (the first half of its backward part). */
static void lets_again(Sweep *in, const Vec *lets)
{
    Grad *g = in->g;
    for (int i = 0; i < lets->n; i++) {
        Node *l = lets->v[i];
        emit(in, clone(g, l));
        if (in->locals)
            ptrset_add(g->x->a, in->locals, l->let.sym);
        if (is_float(l->let.sym->ty))
            let_active(g, l);
    }
    for (int i = 0; i < lets->n; i++)
        if (is_float(((Node *)lets->v[i])->let.sym->ty))
            let_adjoint(in, lets->v[i]);
}

/* ... and each let's adjoint pushed back through its value, in reverse
 * (the second half). */
static void lets_back(Sweep *in, const Vec *lets)
{
    for (int i = lets->n - 1; i >= 0; i--) {
        Node *l = lets->v[i];
        if (is_float(l->let.sym->ty))
            back(in, l->let.init, strmap_get(&in->g->adj, l->let.id));
    }
}

/* A loop body's or lane's backward part: its lets recomputed, with
 * adjoints, then `adj` (an expression, or the name adj_id) pushed back
 * through value, then through the lets in reverse. */
static void back_body(Sweep *in, const Vec *lets, Node *value, Node *adj, const char *adj_id)
{
    lets_again(in, lets);
    back(in, value, adj_id ? adj_id : bind(in, "g", adj));
    lets_back(in, lets);
}

/* The backward part of a write nest's body (one_write's form): its lets
 * again, then d_out at the element pushed back through the write's value,
 * or the inner loop's own backward loop, then the lets in reverse. */
static void back_nest(Sweep *in, Node *body)
{
    Grad *g = in->g;
    Vec lets = {0};
    Node *w = one_write(g, body, &lets);
    if (!w)
        return;
    lets_again(in, &lets);
    if (w->kind == N_ASSIGN) {
        Node *lhs = w->assign.lhs;
        const char *d = strmap_get(&g->dout, view_root(lhs->index.base)->id);
        back(in, w->assign.rhs, bind(in, "g", node_index(&g->b, name(g, d), clone(g, lhs->index.index))));
    } else {
        Vec inner = {0};
        Sweep loop = *in;
        loop.out = &inner;
        if (in->locals)
            ptrset_add(g->x->a, in->locals, w->loop.sym);
        back_nest(&loop, w->loop.body);
        emit(in, node_for(&g->b, w->loop.var, clone(g, w->loop.lo), clone(g, w->loop.hi),
                          node_block(&g->b, (Node **)inner.v, inner.n)));
    }
    lets_back(in, &lets);
}

/* The write at the bottom of a nest (one_write's form), the nest's loops
 * (fors, not a region's lane) into loops[0..*n), outermost first; NULL
 * after E-GRAD-FORM. */
enum { NEST_MAX = 8 };
static Node *nest_write(Grad *g, Node *st, Node **loops, int *n)
{
    *n = 0;
    while (!g->failed) {
        if (st->kind == N_ASSIGN)
            return st;
        if (st->kind == N_FOR) {
            if (*n == NEST_MAX) {
                refuse(g, st, E_GRAD_FORM, "nest fewer loops", "derive grad differentiates nests of at most 8 loops");
                return NULL;
            }
            loops[(*n)++] = st;
        }
        Vec lets = {0};
        st = one_write(g, st->loop.body, &lets);
        if (!st)
            return NULL;
    }
    return NULL;
}

/* Whether a nest's write is one-to-one in its loops' counters (a region's
 * lanes are apart by the race rule, which f passed). With the counters
 * c_1 (innermost) .. c_k and index = a_1 c_1 + ... + a_k c_k + rest: a_1
 * not zero and each a_{m+1} = a_m (hi_m - lo_m), the strides of a mixed
 * radix (`r * cols + j` for j in 0..cols); then two iterations with one
 * index are one iteration. a_1 is not zero when it is a non-zero constant,
 * or the extent of a loop or region of the nest: where an iteration runs,
 * that extent is at least 1 (`y[r * cols + j]` for r in 0..rows in a lane
 * j of `parallel j in cols`). */
static bool nonzero_in_nest(const SForm *a, const SForm *ext, int n)
{
    SNum c;
    if (sform_is_const(a, &c))
        return c != 0;
    for (int i = 0; i < n; i++) {
        SForm neg;
        if (sform_equal(a, &ext[i]) || (sform_scale(&neg, &ext[i], -1) && sform_equal(a, &neg)))
            return true;
    }
    return false;
}

static bool writes_once(Grad *g, Node *st, Node *w, Node **loops, int n)
{
    if (n == 0)
        return true;
    SEnv *e = senv_new(g->x->a, SN_FIXED);
    const SKey *keys[NEST_MAX];
    SForm ext[NEST_MAX + 1];   /* each loop's hi - lo, then the region's extent */
    int k = 0, nx = 0;
    if (st->kind == N_PARALLEL) {
        SVal r = sym_eval(e, st->loop.hi);
        if (!r.f.any)
            ext[n] = r.f, nx = 1;
    }
    for (Node *l = st; l && l != w;) {
        if (l->kind == N_FOR) {
            SVal lo = sym_eval(e, l->loop.lo), hi = sym_eval(e, l->loop.hi);
            keys[k] = senv_counter(e, l->loop.sym, &lo, &hi);
            if (lo.f.any || hi.f.any || !sform_add(&ext[k], &hi.f, &lo.f, -1))
                return false;
            k++;
        }
        Node *next = NULL;
        for (int i = 0; i < l->loop.body->block.stmts.n; i++) {
            Node *b = l->loop.body->block.stmts.v[i];
            if (b->kind == N_LET)
                sym_let(e, b);
            else
                next = b;
        }
        l = next;
    }
    SForm rest = sym_eval(e, w->assign.lhs->index.index).f, stride;
    for (int i = k - 1; i >= 0; i--) {
        SForm coef, r;
        if (rest.any || !sform_split(&rest, keys[i], &coef, &r))
            return false;
        if (i == k - 1 ? !nonzero_in_nest(&coef, ext, k) && !(nx && nonzero_in_nest(&coef, &ext[n], 1))
                       : !sform_equal(&coef, &stride))
            return false;
        if (!sform_mul(&stride, &coef, &ext[i]))
            return false;
        rest = r;
    }
    for (int i = 0; i < k; i++)
        if (sform_has(&rest, keys[i]))
            return false;
    return true;
}

/* The backward sweep of one write of an output view (a statement, or a
 * loop or region nest around it): the lets again, d_out at the element
 * pushed back through the value, then through the lets. */
static void back_write(Sweep *s, Node *st)
{
    Grad *g = s->g;
    if (st->kind == N_ASSIGN) {
        Node *lhs = st->assign.lhs;
        const char *d = strmap_get(&g->dout, view_root(lhs->index.base)->id);
        back(s, st->assign.rhs, bind(s, "g", node_index(&g->b, name(g, d), clone(g, lhs->index.index))));
        return;
    }
    Node *loops[NEST_MAX];
    int n;
    Node *w = nest_write(g, st, loops, &n);
    if (!w)
        return;
    if (!writes_once(g, st, w, loops, n)) {
        Node *ix = w->assign.lhs->index.index;
        refuse(g, ix, E_GRAD_FORM, "index the output one-to-one by the loops' counters: `out[i]`, `out[r * cols + j]` "
                                   "with j in 0..cols",
               arena_printf(g->x->a, "the loop writes %s at an index derive grad cannot prove one-to-one in its "
                                     "counters, so it may write an element twice", expand_expr_short(g->x->a, w->assign.lhs, 40)));
        return;
    }
    bool region = st->kind == N_PARALLEL;
    Vec body = {0}, parts = {0};
    PtrSet locals = {0};
    Sweep in = {g, &body, region ? st->loop.sym : NULL, region ? w->assign.lhs->index.index : NULL, &locals, &parts,
                region ? fresh(g, "turn") : NULL};
    if (!region)
        ptrset_add(g->x->a, &locals, st->loop.sym);
    back_nest(&in, st->loop.body);
    Node *blk = node_block(&g->b, (Node **)body.v, body.n);
    if (region)
        emit_region(s, st->loop.var, in.turn, clone(g, st->loop.hi), blk, &parts, st->loop.device ? PLACE_DEVICE : PLACE_HOST,
                    n == 0);
    else
        emit(s, node_for(&g->b, st->loop.var, clone(g, st->loop.lo), clone(g, st->loop.hi), blk));
}

/* At `return e` (e NULL: the end of a function that returns nothing): the
 * result kept, an adjoint for each float let on the path, seed pushed back
 * through e, then each write of an output view's sweep, then each let's
 * adjoint through its value, in reverse. */
static void sweep(Grad *g, Vec *out, Node *e, const Vec *lets, const Vec *writes, const char *seed)
{
    Sweep s = {g, out, NULL, NULL, NULL, NULL, NULL};
    const char *r = e ? bind(&s, "result", clone(g, e)) : NULL;
    for (int i = 0; i < lets->n; i++)
        let_adjoint(&s, lets->v[i]);
    if (e)
        back(&s, e, seed);
    for (int i = writes->n - 1; i >= 0; i--)
        back_write(&s, writes->v[i]);
    for (int i = lets->n - 1; i >= 0; i--) {
        Node *l = lets->v[i];
        const char *a = strmap_get(&g->adj, l->let.id);
        Node *loop = ptrmap_get(&g->sums, l);
        if (loop) {   /* acc = its start plus each iteration's term: the loop again, each term given a */
            Vec lets2 = {0}, body = {0};
            Node *add = sum_body(g, loop, &lets2);
            Sweep in = {g, &body, NULL, NULL, NULL, NULL, NULL};
            back_body(&in, &lets2, add->assign.rhs, NULL, a);
            emit(&s, node_for(&g->b, loop->loop.var, clone(g, loop->loop.lo), clone(g, loop->loop.hi),
                              node_block(&g->b, (Node **)body.v, body.n)));
        }
        back(&s, l->let.init, a);
    }
    for (int i = 0; i < lets->n; i++)   /* another path's lets are its own */
        strmap_put(g->x->a, &g->adj, ((Node *)lets->v[i])->let.id, NULL);
    if (r)
        emit(&s, node_return(&g->b, name(g, r)));
}

typedef struct {
    Vec lets;             /* N_LET: the float lets on the path */
    Vec writes;           /* the writes of output views on the path (a statement, a loop, a region) */
} Path;

static Node *path(Grad *g, Node **sts, int n, Path p, const char *seed);

/* A branch of an if: its statements, with the path so far. */
static Node *branch(Grad *g, Node *b, const Path *p, const char *seed)
{
    if (!b)
        return NULL;
    if (b->kind == N_BLOCK)
        return path(g, (Node **)b->block.stmts.v, b->block.stmts.n, *p, seed);
    return path(g, &b, 1, *p, seed);   /* else if */
}

static bool ends_in_return(Node *b)
{
    if (!b)
        return false;
    if (b->kind == N_RETURN)
        return true;
    if (b->kind == N_IF)
        return ends_in_return(b->if_.then) && ends_in_return(b->if_.els);
    return b->kind == N_BLOCK && b->block.stmts.n && ends_in_return(b->block.stmts.v[b->block.stmts.n - 1]);
}

/* Two writes of output views by statements: of two views, or of one at two
 * constant indices. */
static bool apart(Grad *g, Node *a, Node *b)
{
    Node *la = a->assign.lhs, *lb = b->assign.lhs;
    int64_t i, j;
    if (view_root(la->index.base) != view_root(lb->index.base))
        return true;
    return sym_const(g->x->a, la->index.index, &i) && sym_const(g->x->a, lb->index.index, &j) && i != j;
}

/* Whether st writes an output view: `out[i] = e`, or a loop or region
 * around one. */
static bool is_write(Grad *g, Node *st)
{
    if (st->kind == N_ASSIGN)
        return st->assign.lhs->kind == N_INDEX && ptrset_has(&g->outs, view_root(st->assign.lhs->index.base));
    return (st->kind == N_FOR || st->kind == N_PARALLEL) && st->loop.body;
}

/* A statement as a message names it. */
static const char *stmt_words(Grad *g, Node *st)
{
    switch (st->kind) {
    case N_WHILE: return "a while loop";
    case N_FOR: return "this for loop";
    case N_PARALLEL: return "this region";
    case N_COOP: return "a cooperative region";
    case N_EXPR_STMT: return arena_printf(g->x->a, "the statement `%s`", expand_expr_short(g->x->a, st->unary.a, 40));
    case N_ASSIGN: return arena_printf(g->x->a, "the assignment to `%s`", expand_expr_short(g->x->a, st->assign.lhs, 40));
    case N_BUFFER: return "a buffer";
    default: return "this statement";
    }
}

/* Statements sts[0..n) of a path, as f_grad's block: each let and write
 * copied (the forward run), each return with its sweep, and the end of a
 * function without a result with the sweep of its writes. */
static Node *path(Grad *g, Node **sts, int n, Path p, const char *seed)
{
    Vec out = {0};
    for (int i = 0; i < n && !g->failed; i++) {
        Node *st = sts[i];
        if (!summed(g, st, &p.lets) && !g->failed && read_early(g, st, &p.lets))
            break;
        switch (st->kind) {
        case N_LET:
            if (st->let.mut && !(st->let.sym && is_float(st->let.sym->ty) && st->let.init)) {
                refuse(g, st, E_GRAD_FORM, "make it an immutable let, or a float let mut one loop sums into",
                       arena_printf(g->x->a, "let mut %s is not a form derive grad differentiates", st->let.id));
                break;
            }
            vec_push(g->x->a, &out, clone(g, st));
            if (st->let.sym && is_float(st->let.sym->ty)) {
                let_active(g, st);
                vec_push(g->x->a, &p.lets, st);
            }
            break;
        case N_RETURN:
            sweep(g, &out, st->unary.a, &p.lets, &p.writes, seed);
            return node_block(&g->b, (Node **)out.v, out.n);
        case N_IF: {
            if (!ends_in_return(st->if_.then)) {
                refuse(g, st, E_GRAD_FORM, "let each path of the if return",
                       "an if whose then path does not return is not a form derive grad differentiates");
                break;
            }
            Node *els = st->if_.els ? branch(g, st->if_.els, &p, seed) : path(g, sts + i + 1, n - i - 1, p, seed);
            vec_push(g->x->a, &out, node_if(&g->b, clone(g, st->if_.cond), branch(g, st->if_.then, &p, seed), els));
            return node_block(&g->b, (Node **)out.v, out.n);
        }
        default: {
            Node *acc = summed(g, st, &p.lets);
            if (acc) {
                if (ptrmap_get(&g->sums, acc)) {
                    refuse(g, st, E_GRAD_FORM, arena_printf(g->x->a, "sum into %s in one loop", acc->let.id),
                           arena_printf(g->x->a, "a second loop adds into %s: derive grad differentiates a let mut "
                                                 "that one loop sums into", acc->let.id));
                    break;
                }
                ptrmap_put(g->x->a, &g->sums, acc, st);
                vec_push(g->x->a, &out, clone(g, st));
                break;
            }
            if (is_write(g, st)) {
                for (int k = 0; k < p.writes.n && !g->failed; k++) {
                    Node *o = p.writes.v[k];
                    if (o->kind != N_ASSIGN || st->kind != N_ASSIGN)
                        refuse(g, st, E_GRAD_FORM, "write each output view in one loop or region",
                               "a second loop or region writing output views: derive grad differentiates one "
                               "write of each element");
                    else if (!apart(g, o, st))
                        refuse(g, st, E_GRAD_FORM, "write each element once, at constant indices",
                               arena_printf(g->x->a, "%s may be written twice: derive grad differentiates one write "
                                                     "of each element", expand_expr_short(g->x->a, st->assign.lhs, 40)));
                }
                vec_push(g->x->a, &out, clone(g, st));
                vec_push(g->x->a, &p.writes, st);
                break;
            }
            refuse(g, st, E_GRAD_FORM, "write f as lets, ifs whose paths return, loops or regions that write "
                   "each output element once, a float let mut one loop sums into, and a return",
                   arena_printf(g->x->a, "%s is not a form derive grad differentiates", stmt_words(g, st)));
            break;
        }
        }
    }
    if (!g->failed && seed)
        refuse(g, g->f, E_GRAD_FORM, "end each path with a return", "a path of the function ends without a return");
    if (!g->failed)
        sweep(g, &out, NULL, &p.lets, &p.writes, NULL);
    return node_block(&g->b, (Node **)out.v, out.n);
}

/* A read of an output view: its d_out stands for what follows its one
 * write, so f reading it back is not differentiated. */
static bool outs_read_visit(Node *n, void *c)
{
    Grad *g = c;
    if (g->failed)
        return false;
    if (n->kind == N_ASSIGN && n->assign.lhs->kind == N_INDEX && n->assign.op == T_ASSIGN) {
        walk_tree(n->assign.lhs->index.index, WALK_CODE, outs_read_visit, c);
        walk_tree(n->assign.rhs, WALK_CODE, outs_read_visit, c);
        return false;
    }
    Sym *root = n->kind == N_INDEX ? view_root(n->index.base) : n->kind == N_NAME ? n->name.sym : NULL;
    if (root && ptrset_has(&g->outs, root))
        refuse(g, n, E_GRAD_FORM, arena_printf(g->x->a, "write the output view once and read it nowhere in %s",
                                               g->f->fn.id),
               arena_printf(g->x->a, "%s reads %s, an output view it writes", g->f->fn.id, root->id));
    return true;
}

bool grad_body(Ctx *x, Node *derive, Node *f, Node *fn)
{
    Grad g;
    grad_init(&g, x, derive, f);
    if (!pick_params(&g))
        return false;
    Type *ret = f->fn.sym->ty->ret;
    for (int k = 0; k < f->fn.params.n; k++) {
        Node *p = f->fn.params.v[k];
        const Type *t = p->param.sym->ty;
        if (t && t->kind == TY_VIEW && t->access == ACC_RW && is_float(t->elem))
            ptrset_add(x->a, &g.outs, p->param.sym);
    }
    int nf = f->fn.params.n, k = nf;
    for (int i = 0; i < fn->fn.params.n; i++)
        strmap_put(x->a, &g.names, ((Node *)fn->fn.params.v[i])->param.id, (void *)1);
    const char *seed = is_float(ret) ? ((Node *)fn->fn.params.v[k++])->param.id : NULL;
    for (int i = 0; i < nf; i++) {
        Node *p = f->fn.params.v[i];
        if (ptrset_has(&g.diff, p->param.sym))
            strmap_put(x->a, &g.adj, p->param.id, (void *)((Node *)fn->fn.params.v[k++])->param.id);
    }
    for (int i = 0; i < nf; i++) {
        Node *p = f->fn.params.v[i];
        if (ptrset_has(&g.outs, p->param.sym))
            strmap_put(x->a, &g.dout, p->param.id, (void *)((Node *)fn->fn.params.v[k++])->param.id);
    }
    walk_tree(f->fn.body, WALK_CODE, outs_read_visit, &g);
    Node *b = f->fn.body;
    Path none = {{0}, {0}};
    if (f->fn.expr_body) {
        Node *r = node_return(&g.b, b);
        fn->fn.body = path(&g, &r, 1, none, seed);
    } else if (!g.failed) {
        fn->fn.body = path(&g, (Node **)b->block.stmts.v, b->block.stmts.n, none, seed);
    }
    return !g.failed;
}
