/*
 * check_stmt.c: statements, blocks, function bodies and closures.
 *
 * Requires: the function's signature resolved and bound in x->scope
 * (check.c), or for a closure the enclosing function's scopes.
 * Guarantees: every local is declared with a unique C name (let.sym,
 * buffer.sym, loop.sym); `break`/`continue` sit in a loop (E-LOOP); every
 * `return` matches the function's result and a function with a result
 * returns on every path (E-RETURN at its closing brace); assignments go to
 * places that may be written (E-ASSIGN).
 */
#include "check.h"
#include "sym.h"

#include <string.h>

static void check_stmt(Ctx *x, Node *s);

/* ------------------------------------------------------- return paths */

/* A break that leaves this loop (not one of an inner loop or a closure). */
static bool has_break(const Node *s)
{
    if (!s)
        return false;
    switch (s->kind) {
    case N_BREAK:
        return true;
    case N_BLOCK: case N_UNSAFE:
        for (int i = 0; i < s->block.stmts.n; i++)
            if (has_break(s->block.stmts.v[i]))
                return true;
        return false;
    case N_IF:
        for (; s && s->kind == N_IF; s = s->if_.els)   /* an else-if chain: a loop */
            if (has_break(s->if_.then))
                return true;
        return has_break(s);
    case N_LOCK:
        return has_break(s->lock.body);
    default:
        return false;
    }
}

/* Whether control surely leaves through a `return` (or never ends: a
 * `while true` with no break). Code after such a statement is unreachable;
 * we accept it, as C does. */
bool stmt_returns(const Node *s)
{
    if (!s)
        return false;
    switch (s->kind) {
    case N_RETURN:
        return true;
    case N_BLOCK: case N_UNSAFE:
        for (int i = 0; i < s->block.stmts.n; i++)
            if (stmt_returns(s->block.stmts.v[i]))
                return true;
        return false;
    case N_IF:
        for (; s && s->kind == N_IF; s = s->if_.els)   /* an else-if chain: a loop */
            if (!s->if_.els || !stmt_returns(s->if_.then))
                return false;
        return stmt_returns(s);
    case N_WHILE:
        return s->loop.cond && s->loop.cond->kind == N_BOOL && s->loop.cond->lit.bval &&
               !has_break(s->loop.body);
    case N_LOCK:
        return stmt_returns(s->lock.body);
    default:
        return false;
    }
}

/* ------------------------------------------------------------- blocks */

void check_block(Ctx *x, Node *b, bool new_scope)
{
    if (!b)
        return;
    if (b->kind != N_BLOCK && b->kind != N_UNSAFE) {
        check_stmt(x, b);
        return;
    }
    if (new_scope)
        scope_push(x);
    for (int i = 0; i < b->block.stmts.n; i++)
        check_stmt(x, b->block.stmts.v[i]);
    if (new_scope)
        scope_pop(x);
}

static Sym *new_local(Ctx *x, const char *id, Node *decl, Type *ty, bool mut)
{
    Sym *s = sym_new(x, SYM_LOCAL, id, decl, ty);
    s->mut = mut;
    s->cname = fresh_cname(x, "v", id);
    declare_local(x, s, decl->span);
    return s;
}

/* ------------------------------------------------------ declarations */

static Type *let_type_of_init(Ctx *x, Node *s, Type *got)
{
    if (got->kind == TY_VOID) {
        diag_error(x->sink, s->let.init->span, E_TYPE_MISMATCH, "call it as a statement: `f(..);`",
                   "%s gives no value to bind to `%s`", estr(x, s->let.init), s->let.id);
        return type_error();
    }
    return got;
}

static void check_let(Ctx *x, Node *s)
{
    Type *want = s->let.type ? resolve_type(x, s->let.type) : NULL;
    if (want && want->kind == TY_REF) {
        diag_error(x->sink, s->let.type->span, E_TYPE_MISMATCH, "write the scalar type; rw<T> is for parameters",
                   "a local cannot be of type %s", tstr(x, want));
        want = type_error();
    }
    Type *t = want;
    if (s->let.init) {
        Type *got = want ? check_expectf(x, s->let.init, want, "the value of `%s`", s->let.id, NULL, NULL)
                         : check_expr(x, s->let.init, NULL);
        if (!want)
            t = is_error(got) ? got : let_type_of_init(x, s, got);
    } else if (!want) {
        diag_error(x->sink, s->span, E_TYPE_MISMATCH, "write `let x:T = value;`",
                   "`%s` has neither a type nor a value", s->let.id);
        t = type_error();
    } else {
        diag_error(x->sink, s->span, E_TYPE_MISMATCH, "give it a value: `let x:T = value;`",
                   "`%s` has no value", s->let.id);
    }
    s->let.sym = new_local(x, s->let.id, s, t ? t : type_error(), s->let.mut);
}

static void check_local_const(Ctx *x, Node *s)
{
    Sym *c = sym_new(x, SYM_CONST, s->let.id, s, NULL);
    c->cname = fresh_cname(x, "k", s->let.id);
    const_resolve(x, c);
    s->let.sym = c;
    declare_local(x, c, s->span);
}

static void check_buffer(Ctx *x, Node *s)
{
    Type *elem = resolve_type(x, s->buffer.elem);
    if (!is_error(elem) && !type_is_scalar(elem)) {
        diag_error(x->sink, s->buffer.elem->span, E_TYPE_MISMATCH, "use a scalar element type",
                   "a buffer's elements must be scalars, not %s", tstr(x, elem));
        elem = type_error();
    }
    Type *n = check_expect(x, s->buffer.size, type_prim(TY_USIZE), "a buffer's length");
    if (!s->buffer.zeroed)
        unsupported(x, s->span, "a buffer without `= zeroed`", "write `buffer x:T[n] = zeroed;`");
    Type *t = (is_error(elem) || is_error(n)) ? type_error()
                                              : view_type(x, ACC_RW, elem, s->buffer.size, s->buffer.place);
    s->buffer.sym = new_local(x, s->buffer.id, s, t, false);
}

/* --------------------------------------------------------- assignment */

static TokKind compound_op(TokKind op)
{
    switch (op) {
    case T_PLUSEQ: return T_PLUS;
    case T_MINUSEQ: return T_MINUS;
    case T_STAREQ: return T_STAR;
    case T_SLASHEQ: return T_SLASH;
    case T_PERCENTEQ: return T_PERCENT;
    default: return T_ASSIGN;
    }
}

static void check_assign(Ctx *x, Node *s)
{
    Node *lhs = s->assign.lhs, *rhs = s->assign.rhs;
    if (!lhs || !rhs)
        return;
    Type *lt = check_expr(x, lhs, NULL);
    bool ok = !is_error(lt) && place_assignable(x, lhs, true, NULL);
    if (s->assign.op == T_ASSIGN) {
        if (is_error(lt))
            check_expr(x, rhs, NULL);
        else
            check_expectf(x, rhs, lt, "the value assigned to %s%s", "", NULL, lhs);
        return;
    }
    Type *rt = check_expr(x, rhs, is_error(lt) ? NULL : lt);
    if (ok && !is_error(rt))
        binop_check(x, s, compound_op(s->assign.op), lhs, lt, rhs, rt);
}

/* ------------------------------------------------------ control flow */

static void check_cond(Ctx *x, Node *c, const char *what)
{
    Type *t = check_expr(x, c, type_prim(TY_BOOL));
    if (is_error(t) || t->kind == TY_BOOL)
        return;
    const char *help = type_is_int(t) || type_is_float(t) ? arena_printf(x->a, "compare: `%s != 0`", estr(x, c))
                                                          : "write a comparison";
    diag_error(x->sink, c->span, E_TYPE_MISMATCH, help, "%s must be bool, not %s", what, tstr(x, t));
}

/* An else-if chain by a loop, however long (each else-if is the else of
 * the one before: recursing would nest as deep as the chain is long). */
static void check_if(Ctx *x, Node *s)
{
    for (;;) {
        check_cond(x, s->if_.cond, "the condition of `if`");
        check_block(x, s->if_.then, true);
        if (!s->if_.els || s->if_.els->kind != N_IF)
            break;
        s = s->if_.els;
    }
    if (s->if_.els)
        check_block(x, s->if_.els, true);
}

static void check_loop_body(Ctx *x, Node *body)
{
    if (!x->fs) {
        check_block(x, body, true);
        return;
    }
    x->fs->loop_depth++;
    check_block(x, body, true);
    x->fs->loop_depth--;
}

/* for i in a..b: a and b of one integer type (two literals: usize). */
static void check_for(Ctx *x, Node *s)
{
    Node *es[2] = {s->loop.lo, s->loop.hi};
    if (!es[0] || !es[1])
        return;
    Type *want = is_untyped(es[0]) && is_untyped(es[1]) ? type_prim(TY_USIZE) : NULL;
    Type *t = check_same(x, es, 2, want, NULL);
    if (!is_error(t) && !type_is_int(t)) {
        diag_error(x->sink, s->loop.lo->span, E_TYPE_MISMATCH, "a range runs over integers: `for i in 0..n`",
                   "a range's bounds must be integers, not %s", tstr(x, t));
        t = type_error();
    }
    scope_push(x);
    s->loop.sym = new_local(x, s->loop.var, s, t, false);
    check_loop_body(x, s->loop.body);
    scope_pop(x);
}

static void check_while(Ctx *x, Node *s)
{
    check_cond(x, s->loop.cond, "the condition of `while`");
    check_loop_body(x, s->loop.body);
}

/* A parallel region: its body is checked as a loop's; the lane rules
 * (races, outside scalars, nesting, calls) run after every body is typed
 * (check_par.c). A region that indexes @device views is device work
 * (issue 5): refused, but after its body, so a rule broken inside it (d20's
 * E-WIDE) is reported with its own code. */
void check_parallel(Ctx *x, Node *s)
{
    check_expect(x, s->loop.hi, type_prim(TY_USIZE), "a parallel region's extent");
    LanePlace lp;
    lanes_begin(x, &lp);
    scope_push(x);
    s->loop.sym = new_local(x, s->loop.var, s, type_prim(TY_USIZE), false);
    if (x->fs) {
        int depth = x->fs->loop_depth;
        x->fs->loop_depth = 0;     /* a lane cannot break out of its region */
        x->fs->parallel++;
        check_block(x, s->loop.body, true);
        x->fs->parallel--;
        x->fs->loop_depth = depth;
    }
    scope_pop(x);
    s->loop.device = lanes_end(x, &lp, arena_printf(x->a, "the region at line %d", s->span.line));
}

static void check_jump(Ctx *x, Node *s)
{
    if (x->fs && x->fs->loop_depth > 0)
        return;
    const char *w = s->kind == N_BREAK ? "break" : "continue";
    diag_error(x->sink, s->span, E_LOOP, "use `return` to leave a function",
               "`%s` outside a `for` or `while` loop", w);
}

static void check_return(Ctx *x, Node *s)
{
    Node *e = s->unary.a;
    Type *ret = x->fs ? x->fs->ret : type_prim(TY_VOID);
    const char *fname = x->fs && x->fs->fn->fn.id ? x->fs->fn->fn.id : "this closure";
    if (ret->kind == TY_VOID) {
        if (e) {
            check_expr(x, e, NULL);
            diag_error(x->sink, e->span, E_RETURN, "add a result type: `fn f(..) -> T`, or drop the value",
                       "%s gives no value, but this return gives %s", fname, estr(x, e));
        }
        return;
    }
    if (!e) {
        if (!is_error(ret))
            diag_error(x->sink, s->span, E_RETURN, arena_printf(x->a, "write `return VALUE;` (of type %s)", tstr(x, ret)),
                       "%s's result is %s, but this return has no value", fname, tstr(x, ret));
        return;
    }
    if (is_error(ret))
        check_expr(x, e, NULL);
    else
        check_expectf(x, e, ret, "the result of %s", fname, NULL, NULL);
}

/* Typed PTX is not lowered yet; under --emulate it never will be, since the
 * host pass of a lane cannot run the PTX (devices.md, "Emulating device
 * code on the host"), so that refusal is final and says so. */
static void check_asm(Ctx *x, Node *s)
{
    if (x->c->emulate)
        diag_error(x->sink, s->span, E_EMULATE, "build for the device target without --emulate, or write the "
                   "operation in checked CAIRN",
                   "typed PTX (asm %s) under --emulate: the host cannot run PTX as the device would, and an "
                   "emulation never approximates it", s->asm_.dialect ? s->asm_.dialect : "ptx");
    else
        unsupported(x, s->span, "typed PTX (asm, a later issue)", NULL);
    for (int i = 0; i < s->asm_.outs.n; i++) {
        Node *o = s->asm_.outs.v[i];
        if (o && o->kind == N_PARAM)
            o->param.sym = new_local(x, o->param.id, o, type_error(), false);
    }
}

static void check_stmt(Ctx *x, Node *s)
{
    if (!s)
        return;
    switch (s->kind) {
    case N_BLOCK: check_block(x, s, true); break;
    case N_LET: check_let(x, s); break;
    case N_CONST: check_local_const(x, s); break;
    case N_BUFFER: check_buffer(x, s); break;
    case N_SHARED: check_shared(x, s); break;
    case N_PIPELINE: check_pipeline(x, s); break;
    case N_ASSIGN: check_assign(x, s); break;
    case N_EXPR_STMT: check_expr(x, s->unary.a, NULL); break;
    case N_IF: check_if(x, s); break;
    case N_FOR: check_for(x, s); break;
    case N_WHILE: check_while(x, s); break;
    case N_BREAK: case N_CONTINUE: check_jump(x, s); break;
    case N_RETURN: check_return(x, s); break;
    case N_PARALLEL: check_parallel(x, s); break;
    case N_COOP: check_coop(x, s); break;
    case N_BARRIER: check_barrier(x, s); break;
    case N_UNSAFE:
        unsupported(x, s->span, "unsafe blocks (a later issue)", NULL);
        check_block(x, s, false);   /* no scope: asm outputs live on after it (SYNTAX.md 12) */
        break;
    case N_ASM: check_asm(x, s); break;
    case N_LOCK:
        unsupported(x, s->span, "locks (a later issue)", NULL);
        check_block(x, s->lock.body, true);
        break;
    case N_LAUNCH: unsupported(x, s->span, "launch of extern kernels (foreign CUDA, a later issue)", NULL); break;
    case N_FN: case N_LAYOUT: case N_DERIVE: case N_PLAN:
        diag_error(x->sink, s->span, E_UNSUPPORTED, "declare it at top level",
                   "a %s inside a function is not supported", node_kind_name(s->kind));
        break;
    default:
        check_expr(x, s, NULL);   /* an expression where a statement goes */
    }
}

/* ------------------------------------------------------------ bodies */

static void check_missing_return(Ctx *x, Node *fn)
{
    Node *body = fn->fn.body;
    if (!x->fs || x->fs->ret->kind == TY_VOID || is_error(x->fs->ret) || fn->fn.expr_body)
        return;
    if (stmt_returns(body))
        return;
    const char *name = fn->fn.id ? fn->fn.id : "this closure";
    diag_error(x->sink, closing_brace(body->span), E_RETURN,
               arena_printf(x->a, "end every path with `return VALUE;` (of type %s)", tstr(x, x->fs->ret)),
               "%s's result is %s, but control can reach its end without a return", name, tstr(x, x->fs->ret));
}

static void check_expr_body(Ctx *x, Node *fn)
{
    Node *e = fn->fn.body;
    Type *ret = x->fs->ret;
    if (ret->kind != TY_VOID) {
        if (is_error(ret))
            check_expr(x, e, NULL);
        else
            check_expectf(x, e, ret, "the result of %s", fn->fn.id ? fn->fn.id : "this closure", NULL, NULL);
        return;
    }
    Type *t = check_expr(x, e, NULL);
    if (!is_error(t) && t->kind != TY_VOID && fn->kind == N_FN)
        diag_error(x->sink, e->span, E_RETURN, arena_printf(x->a, "add the result type: `-> %s`", tstr(x, t)),
                   "%s declares no result, but its body gives a %s", fn->fn.id ? fn->fn.id : "fn", tstr(x, t));
}

void check_fn_body(Ctx *x, Node *fn)
{
    Type *ft = fn->fn.sym ? fn->fn.sym->ty : NULL;
    FnState fs = {.fn = fn, .ret = ft && ft->kind == TY_FN ? ft->ret : type_error()};
    FnState *saved = x->fs;
    x->fs = &fs;
    if (fn->fn.body) {
        if (fn->fn.expr_body)
            check_expr_body(x, fn);
        else
            check_block(x, fn->fn.body, false);
        check_missing_return(x, fn);
    }
    x->fs = saved;
}

/* ----------------------------------------------------------- closures */

static Type *closure_params(Ctx *x, Node *e, Type *ft)
{
    bool bad = false;
    for (int i = 0; i < e->fn.params.n; i++) {
        Node *p = e->fn.params.v[i];
        Type *pt = resolve_type(x, p->param.type);
        if (pt->kind == TY_VIEW || pt->kind == TY_REF) {
            unsupported(x, p->span, "a view or rw<T> parameter of a closure (a later issue)",
                        "pass scalars and Arrays to closures for now");
            pt = type_error();
        }
        bad |= is_error(pt);
        Sym *ps = sym_new(x, SYM_PARAM, p->param.id, p, pt);
        ps->cname = fresh_cname(x, "v", p->param.id);
        p->param.sym = ps;
        declare_local(x, ps, p->span);
        vec_push(x->a, &ft->params, pt);
    }
    return bad ? type_error() : ft;
}

/* The result of a closure written without `-> R`: its expression's type. */
static void closure_body(Ctx *x, Node *e, FnState *fs)
{
    if (!e->fn.body)
        return;
    if (e->fn.expr_body && !e->fn.ret) {
        Type *t = check_expr(x, e->fn.body, NULL);
        fs->ret = t;
        return;
    }
    if (e->fn.expr_body)
        check_expr_body(x, e);
    else
        check_block(x, e->fn.body, true);
    check_missing_return(x, e);
}

/* fn(x:f32) -> f32 = x * a: a function value that captures the outside
 * locals it names by value (check_expr records them in fn.captures). */
Type *check_closure(Ctx *x, Node *e, Type *expected)
{
    (void)expected;
    if (x->fn_level >= 60) {
        unsupported(x, e->span, "closures nested more than 60 deep", NULL);
        return type_error();
    }
    Type *ft = arena_alloc(x->a, sizeof *ft);
    ft->kind = TY_FN;
    e->fn.cname = arena_printf(x->a, "cl_%d", ++x->next_id);
    x->fn_level++;
    x->closures[x->fn_level] = e;
    scope_push(x);
    Type *pt = closure_params(x, e, ft);
    FnState fs = {.fn = e, .ret = e->fn.ret ? resolve_type(x, e->fn.ret) : type_prim(TY_VOID)};
    FnState *saved = x->fs;
    x->fs = &fs;
    closure_body(x, e, &fs);
    x->fs = saved;
    scope_pop(x);
    x->fn_level--;
    ft->ret = fs.ret;
    if (is_error(pt) || is_error(fs.ret))
        return type_error();
    return ft;
}

/* ------------------------------------------------------------ spawn */

/* spawn queues only a transfer or a device region (E-SPAWN); checked with
 * the statements (a spawned region is checked as any region), before the
 * device rules (check_dev.c) see the tickets. */

static bool is_transfer_call(const Node *w)
{
    return w && w->kind == N_CALL && w->call.callee && w->call.callee->kind == N_NAME &&
           w->call.callee->name.id && strcmp(w->call.callee->name.id, "transfer") == 0;
}

static bool touches_device(const Node *call)
{
    for (int i = 0; i < call->call.args.n; i++) {
        const Type *t = ((const Node *)call->call.args.v[i])->ty;
        if (t && t->kind == TY_VIEW && (t->place == PLACE_DEVICE || t->place == PLACE_UNIFIED))
            return true;
    }
    return false;
}

Type *check_spawn(Ctx *x, Node *e)
{
    bool ok = true;
    for (int i = 0; i < e->spawn.after.n; i++) {
        Node *a = e->spawn.after.v[i];
        Type *t = check_expr(x, a, NULL);
        if (is_error(t)) {
            ok = false;
        } else if (t->kind != TY_TICKET || a->kind != N_NAME) {
            diag_error(x->sink, a->span, E_TYPE_MISMATCH, "name a live ticket: `after up`",
                       "after takes tickets, and %s is %s", estr(x, a), tstr(x, t));
            ok = false;
        }
    }
    Node *w = e->spawn.work;
    if (w && w->kind == N_PARALLEL) {
        check_parallel(x, w);
        if (!w->loop.device) {
            diag_error(x->sink, w->span, E_SPAWN,
                       "run it as a plain region: `parallel i in n { .. }` (host regions return when done)",
                       "spawn queues device work, and this region's lanes reach no @device memory, so it would "
                       "run on host threads");
            ok = false;
        }
    } else if (is_transfer_call(w)) {
        ok = !is_error(check_expr(x, w, NULL)) && ok;
        if (ok && !touches_device(w)) {
            diag_error(x->sink, w->span, E_SPAWN, "copy host memory with a plain `transfer(dst, src);`",
                       "spawn queues device work, and this transfer has no side in device memory");
            ok = false;
        }
    } else {
        if (w)
            check_expr(x, w, NULL);
        diag_error(x->sink, w ? w->span : e->span, E_SPAWN,
                   "queue a transfer or a device region: `spawn transfer(d, h)`, `spawn parallel i in n after t { .. }`",
                   "spawn queues device work only: a transfer or a region over @device views");
        ok = false;
    }
    return ok ? type_prim(TY_TICKET) : type_error();
}

/* ------------------------------------------------------------ cooperative regions */

/* The typing of cooperative regions (issue 13); their rules are
 * check_coop.c's, in the parallel-rules pass.
 *   E-COOP-SHAPE    one to three names a side; thread extents constants
 *                   whose product is a whole number of warps, 32 to 1024;
 *                   a finish with the region's number of threads
 *   E-COOP-SHARED   a shared array of a constant length, declared directly
 *                   in a region's body (or its finish); 48 KiB a block, each
 *                   array on a 128-byte boundary
 *   E-COOP-BARRIER  a barrier outside a region
 *   E-COOP-WARP     a warp operation outside a region */

enum { SHARED_LIMIT = 48 * 1024, SHARED_ALIGN = 128 };

static Sym *coop_name(Ctx *x, const char *id, Node *decl)
{
    Sym *s = sym_new(x, SYM_LOCAL, id, decl, type_prim(TY_USIZE));
    s->cname = fresh_cname(x, "v", id);
    declare_local(x, s, decl->span);
    return s;
}

/* T, the product of the thread extents; -1 when it is not a block's shape
 * (reported). */
static int64_t thread_count(Ctx *x, Node *at, const Vec *ext, const char *what)
{
    int64_t t = 1;
    bool known = true;
    for (int i = 0; i < ext->n; i++) {
        Node *e = ext->v[i];
        int64_t v;
        if (is_error(check_expect(x, e, type_prim(TY_USIZE), "a thread extent")))
            return -1;
        if (!sym_const(x->a, e, &v)) {
            diag_error(x->sink, e->span, E_COOP_SHAPE, "write the block's threads as literals or constants: `threads t in 256`",
                       "%s's thread extent %s is known only when it runs: a block's shape is fixed when it is compiled",
                       what, estr(x, e));
            known = false;
            continue;
        }
        t = v > 2048 || t > 2048 ? 2048 : t * v;   /* past 1024 is past 1024 */
    }
    if (!known)
        return -1;
    if (t < 32 || t > 1024 || t % 32) {
        diag_error(x->sink, at->span, E_COOP_SHAPE, "a block is 32 to 1024 threads in whole warps of 32: `threads t in 256`",
                   "%s has %s%lld threads: a block is a whole number of warps from 32 to 1024", what,
                   t >= 2048 ? "over " : "", (long long)t);
        return -1;
    }
    return t;
}

static void names(Ctx *x, Node *s, const Vec *ids, Vec *syms, const char *side)
{
    if (ids->n > 3)
        diag_error(x->sink, s->span, E_COOP_SHAPE, "name at most three blocks and three threads: `blocks bx, by in gx, gy`",
                   "%d %s names: a region has one to three on each side", ids->n, side);
    for (int i = 0; i < ids->n; i++)
        vec_push(x->a, syms, coop_name(x, ids->v[i], s));
}

/* Checks one body (the region's or its finish) with the region's state. */
static void coop_body(Ctx *x, Node *s, Node *body)
{
    FnState *fs = x->fs;
    Node *coop = fs->coop, *top = fs->coop_body;
    int64_t bytes = fs->coop_bytes;
    int depth = fs->loop_depth;
    fs->coop = s;
    fs->coop_body = body;
    fs->coop_bytes = 0;
    fs->loop_depth = 0;   /* a thread cannot break out of its region */
    fs->parallel++;
    check_block(x, body, true);
    fs->parallel--;
    fs->loop_depth = depth;
    fs->coop = coop;
    fs->coop_body = top;
    fs->coop_bytes = bytes;
}

/* The receipt's record of one body's shared arrays: each array's bytes,
 * offset and how it starts, and the block's total. */
static void local_storage(Ctx *x, Node *s, Node *body, const char *what)
{
    const char *arrays = "";
    int64_t bytes = 0;
    for (int i = 0; body && i < body->block.stmts.n; i++) {
        Node *d = body->block.stmts.v[i];
        int64_t n, depth = 1;
        Sym *y = d->kind == N_SHARED || d->kind == N_PIPELINE ? d->buffer.sym : NULL;
        if (!y || !y->ty || y->ty->kind != TY_VIEW || !sym_const(x->a, y->ty->extent, &n) ||
            (d->kind == N_PIPELINE && !sym_const(x->a, d->buffer.depth, &depth)))
            continue;
        int64_t off = (bytes + SHARED_ALIGN - 1) / SHARED_ALIGN * SHARED_ALIGN;
        int64_t stage = n * (type_bits(y->ty->elem) ? type_bits(y->ty->elem) / 8 : 1), size = stage * depth;
        bytes = off + size;
        const char *kind = d->kind == N_PIPELINE
            ? arena_printf(x->a, "\"pipeline\": {\"depth\": %lld, \"stage_bytes\": %lld}, \"starts\": \"filled by its fills\"",
                           (long long)depth, (long long)stage)
            : arena_printf(x->a, "\"starts\": \"%s\"", d->buffer.zeroed ? "zeroed" : "written before read");
        arrays = arena_printf(x->a, "%s%s{\"name\": \"%s\", \"bytes\": %lld, \"offset\": %lld, %s}", arrays,
                              *arrays ? ", " : "", y->id, (long long)size, (long long)off, kind);
    }
    const char *fn = x->fs && x->fs->fn && x->fs->fn->kind == N_FN && x->fs->fn->fn.id ? x->fs->fn->fn.id : "?";
    vec_push(x->a, &x->c->local_storage,
             (void *)arena_printf(x->a, "{\"fn\": \"%s\", \"region\": %d, \"body\": \"%s\", \"block_bytes\": %lld, "
                                  "\"arrays\": [%s]}", fn, s->span.line, what, (long long)bytes, arrays));
}

void check_coop(Ctx *x, Node *s)
{
    if (!x->fs)
        return;
    if (x->fs->coop) {
        diag_error(x->sink, s->span, E_PARALLEL_NEST, "run it after the region", "a cooperative region inside the "
                   "cooperative region at line %d: regions do not nest", x->fs->coop->span.line);
        return;
    }
    for (int i = 0; i < s->coop.bext.n; i++)
        check_expect(x, s->coop.bext.v[i], type_prim(TY_USIZE), "a grid extent");
    int64_t t = thread_count(x, s, &s->coop.text, "the region");
    /* a generic's instance is a clone of a checked tree: its names are its own */
    s->coop.bsyms = s->coop.tsyms = s->coop.fsyms = (Vec){0};
    LanePlace lp;
    lanes_begin(x, &lp);
    scope_push(x);
    names(x, s, &s->coop.bvars, &s->coop.bsyms, "block");
    names(x, s, &s->coop.tvars, &s->coop.tsyms, "thread");
    coop_body(x, s, s->coop.body);
    scope_pop(x);
    if (s->coop.finish) {
        int64_t f = thread_count(x, s, &s->coop.fext, "the finish");
        if (t > 0 && f > 0 && f != t)
            diag_error(x->sink, s->coop.finish->span, E_COOP_SHAPE, "give the finish the region's thread count",
                       "the finish has %lld threads and the region %lld: a finish runs as one more block of the region",
                       (long long)f, (long long)t);
        scope_push(x);   /* no block name: nothing of a block is in scope */
        names(x, s, &s->coop.fvars, &s->coop.fsyms, "thread");
        coop_body(x, s, s->coop.finish);
        scope_pop(x);
    }
    s->coop.threads = t;
    s->coop.device = lanes_end(x, &lp, arena_printf(x->a, "the cooperative region at line %d", s->span.line));
    numerics_add_region_atomics(x, s);
    if (!x->generic_unknown) {
        local_storage(x, s, s->coop.body, "blocks");
        if (s->coop.finish)
            local_storage(x, s, s->coop.finish, "finish");
    }
    /* Under --emulate a region runs too: one on the host as on the host, one
     * on the device on the emulated machine's teams of host threads
     * (emit_coop.c, cairn_coopdev.h). */
}

static bool declared_in(const Node *body, const Node *s)
{
    for (int i = 0; body && i < body->block.stmts.n; i++)
        if (body->block.stmts.v[i] == s)
            return true;
    return false;
}

/* Where a shared array or a pipeline may be declared, and its place in the
 * block's 48 KiB: SLOTS elements of ELEM (a pipeline's are its stages'). */
static bool coop_storage(Ctx *x, Node *s, Type *elem, int64_t slots, const char *what)
{
    FnState *fs = x->fs;
    if (!fs || !fs->coop || !declared_in(fs->coop_body, s)) {
        diag_error(x->sink, s->span, E_COOP_SHARED, "declare it directly in the body of `blocks .. threads ..` (or of its finish)",
                   "a %s %s: it is a block's memory, declared directly in a cooperative region's body", what,
                   fs && fs->coop ? "inside a nested block" : "outside a cooperative region");
        return false;
    }
    if (slots <= 0)
        return true;   /* a generic's unknown depth: its instances are counted */
    int64_t size = (type_bits(elem) ? type_bits(elem) / 8 : 1) * (slots > SHARED_LIMIT ? SHARED_LIMIT + 1 : slots);
    int64_t start = (fs->coop_bytes + SHARED_ALIGN - 1) / SHARED_ALIGN * SHARED_ALIGN;
    fs->coop_bytes = start + size;
    if (fs->coop_bytes <= SHARED_LIMIT)
        return true;
    diag_error(x->sink, s->span, E_COOP_SHARED, "use fewer or smaller shared arrays; a block has 48 KiB",
               "the block's shared arrays take %lld bytes with %s (%lld bytes at offset %lld, each array on a "
               "128-byte boundary): more than 48 KiB (49152)", (long long)fs->coop_bytes, s->buffer.id,
               (long long)size, (long long)start);
    return false;
}

/* The declared local of a shared array or a pipeline: a view of the block's
 * memory (a pipeline's: its readable stage, which no thread writes). */
static void coop_local(Ctx *x, Node *s, Type *elem, bool ok, bool pipeline)
{
    Type *t = type_error();
    if (ok) {
        t = view_type(x, pipeline ? ACC_RO : ACC_RW, elem, s->buffer.size, PLACE_HOST);
        t->shared = true;
        t->pipeline = pipeline;
    }
    Sym *y = sym_new(x, SYM_LOCAL, s->buffer.id, s, t);
    y->cname = fresh_cname(x, "v", s->buffer.id);
    declare_local(x, y, s->span);
    s->buffer.sym = y;
}

/* A constant length above 0, for a shared array or a pipeline's stage. */
static bool coop_length(Ctx *x, Node *s, const char *what, int64_t *n)
{
    if (sym_const(x->a, s->buffer.size, n) && *n > 0)
        return true;
    diag_error(x->sink, s->buffer.size->span, E_COOP_SHARED,
               arena_printf(x->a, "give it a constant length: `%s`",
                            strcmp(what, "shared array") ? "pipeline p:f32[256] depth 2;" : "shared s:f32[256];"),
               "a %s's length must be a constant above 0, and %s is %s", what, estr(x, s->buffer.size),
               sym_const(x->a, s->buffer.size, n) ? "0" : "known only when it runs");
    return false;
}

void check_shared(Ctx *x, Node *s)
{
    Type *elem = resolve_type(x, s->buffer.elem);
    bool ok = !is_error(elem);
    if (ok && !type_is_scalar(elem)) {
        diag_error(x->sink, s->buffer.elem->span, E_TYPE_MISMATCH, "use a scalar element type",
                   "a shared array's elements must be scalars, not %s", tstr(x, elem));
        ok = false;
    }
    ok = !is_error(check_expect(x, s->buffer.size, type_prim(TY_USIZE), "a shared array's length")) && ok;
    int64_t n = 0;
    if (!coop_storage(x, s, elem, 0, "shared array"))
        ok = false;
    else if (ok)
        ok = coop_length(x, s, "shared array", &n) && coop_storage(x, s, elem, n, "shared array");
    coop_local(x, s, elem, ok, false);
}

/* pipeline p:T[N] depth D; -- D stages of N elements of a 2-, 4- or
 * 8-byte number (a cp.async copies 4, 8 or 16 bytes; 2-byte elements move
 * 16 bytes at a time where they can, else one by one with plain loads), D
 * from 1 to 8 (E-COOP-SHARED); a generic's depth is counted in its
 * instances. One-byte elements (u8, f8e4m3, ...) are refused: a stage of
 * them would move one byte a thread at the edges. */
void check_pipeline(Ctx *x, Node *s)
{
    Type *elem = resolve_type(x, s->buffer.elem);
    bool ok = !is_error(elem);
    if (ok && (!type_is_scalar(elem) || elem->kind == TY_BOOL ||
               (type_bits(elem) != 16 && type_bits(elem) != 32 && type_bits(elem) != 64))) {
        diag_error(x->sink, s->buffer.elem->span, E_COOP_SHARED,
                   "stage a 2-, 4- or 8-byte number: u16, i16, f16, bf16, u32, i32, f32, u64, i64, f64",
                   "a pipeline's elements are 2-, 4- or 8-byte numbers, not %s", tstr(x, elem));
        ok = false;
    }
    ok = !is_error(check_expect(x, s->buffer.size, type_prim(TY_USIZE), "a pipeline's stage length")) && ok;
    ok = !is_error(check_expect(x, s->buffer.depth, type_prim(TY_USIZE), "a pipeline's depth")) && ok;
    int64_t n = 0, d = 0;
    bool depth_known = sym_const(x->a, s->buffer.depth, &d);
    if (!depth_known && !x->generic_unknown) {
        diag_error(x->sink, s->buffer.depth->span, E_COOP_SHARED, "give it a constant depth: `depth 2`, or a [D:nat] of the fn",
                   "a pipeline's depth must be a constant, and %s is known only when it runs", estr(x, s->buffer.depth));
        ok = false;
    } else if (depth_known && (d < 1 || d > 8)) {
        diag_error(x->sink, s->buffer.depth->span, E_COOP_SHARED, "give it a depth from 1 to 8",
                   "a pipeline has 1 to 8 stages, not %lld%s", (long long)d,
                   s->buffer.depth->kind == N_INT ? "" : arena_printf(x->a, " (%s)", estr(x, s->buffer.depth)));
        ok = false;
    }
    if (!coop_storage(x, s, elem, 0, "pipeline"))
        ok = false;
    else if (ok && coop_length(x, s, "pipeline", &n) && depth_known)
        ok = coop_storage(x, s, elem, n * d, "pipeline");
    coop_local(x, s, elem, ok, true);
}

void check_barrier(Ctx *x, Node *s)
{
    if (x->fs && x->fs->coop)
        return;
    diag_error(x->sink, s->span, E_COOP_BARRIER, "a barrier belongs in the body of `blocks b in G threads t in T { }`",
               "barrier outside a cooperative region: there is no block of threads to wait for");
}

bool coop_warp_place(Ctx *x, Node *e, const char *what)
{
    if (x->fs && x->fs->coop)
        return true;
    diag_error(x->sink, e->span, E_COOP_WARP, "use it in the body of `blocks b in G threads t in T { }`",
               "%s outside a cooperative region: a warp operation needs the threads of a warp", what);
    return false;
}
