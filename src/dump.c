/*
 * dump.c: what `cairn check --dump=WHAT` prints, in a stable text form:
 *
 *   ast      after parse: the tree, one node a line, indented by depth:
 *            its kind, line:col, and its key fields
 *   types    after resolve: each function to emit (generic instances
 *            included), then every expression in it with its type
 *   effects  after effects: each function's effect row
 *
 * Requires: what the pass that offers the dump guarantees (pass.c).
 * Guarantees: one line a node, function or row; a chain or an else-if
 * chain of any length is printed by a loop, and indentation stops growing
 * past 32 levels (the depth is printed instead).
 */
#include "chain.h"
#include "pass.h"
#include "par.h"

#include <string.h>

enum { INDENT_MAX = 32 };

static const char *collect_kind_name(CollectKind k)
{
    return k == COLLECT_SCAN ? "scan" : k == COLLECT_COMPACT ? "compact" : "reduce";
}

static const char *mode_name(CollectMode m)
{
    return m == MODE_PARALLEL ? "parallel" : m == MODE_WARP ? "warp" : "for";
}

static void put_id(FILE *out, const char *id)
{
    fputc(' ', out);
    diag_write_text(out, id ? id : "_", strlen(id ? id : "_"));
}

/* The fields that tell one node of a kind from another. */
static void key_fields(FILE *out, const Node *n)
{
    switch (n->kind) {
    case N_INT: case N_FLOAT: put_id(out, n->lit.text); break;
    case N_BOOL: fputs(n->lit.bval ? " true" : " false", out); break;
    case N_STRING: fputc(' ', out); json_write_string(out, n->lit.sval ? n->lit.sval : ""); break;
    case N_NAME: put_id(out, n->name.id); break;
    case N_UNARY: fprintf(out, " %s", tok_name(n->unary.op)); break;
    case N_BINARY: fprintf(out, " %s", tok_name(n->binary.op)); break;
    case N_ASSIGN: fprintf(out, " %s", tok_name(n->assign.op)); break;
    case N_FIELD: put_id(out, n->field.id); break;
    case N_COLLECT:
        fprintf(out, " %s %s %s", collect_kind_name(n->collect.kind), n->collect.op ? n->collect.op : "",
                mode_name(n->collect.mode));
        if (n->collect.var)
            put_id(out, n->collect.var);
        break;
    case N_TYPE: put_id(out, n->type.id); break;
    case N_LET: case N_CONST: case N_LAYOUT:
        fputs(n->let.mut ? " mut" : "", out);
        put_id(out, n->let.id);
        break;
    case N_BUFFER: case N_SHARED: case N_PIPELINE:
        put_id(out, n->buffer.id);
        fprintf(out, " @%s%s", place_name(n->buffer.place), n->buffer.zeroed ? " zeroed" : "");
        break;
    case N_FOR: case N_PARALLEL: put_id(out, n->loop.var); break;
    case N_FN: case N_CLOSURE:
        put_id(out, n->fn.id ? n->fn.id : "(closure)");
        fprintf(out, "%s%s%s", n->fn.is_kernel ? " kernel" : "", n->fn.is_extern ? " extern" : "",
                n->fn.is_test ? " test" : "");
        break;
    case N_PARAM: put_id(out, n->param.id); break;
    case N_DERIVE: put_id(out, n->derive.what); put_id(out, n->derive.target); break;
    case N_PLAN: put_id(out, n->plan.target); break;
    case N_PLAN_ITEM: put_id(out, n->plan_item.id); break;
    case N_ASM: put_id(out, n->asm_.dialect); fputc(' ', out); json_write_string(out, n->asm_.tpl); break;
    default: break;
    }
}

static void node_line(FILE *out, const Node *n, int depth)
{
    if (depth > INDENT_MAX)
        fprintf(out, "%*s+%d ", 2 * INDENT_MAX, "", depth);
    else
        fprintf(out, "%*s", 2 * depth, "");
    fprintf(out, "%s %d:%d", node_kind_name(n->kind), n->span.line, n->span.col);
    key_fields(out, n);
    fputc('\n', out);
}

typedef struct {
    FILE *out;
    int depth;
} AstDump;

static void dump_node(AstDump *d, Node *n);

static Node *dump_child(Node *child, WalkClass cls, void *p)
{
    (void)cls;
    AstDump *d = p;
    if (child) {
        d->depth++;
        dump_node(d, child);
        d->depth--;
    }
    return child;
}

/* A chain: the spine top down, one level deeper each, then the leaf, then
 * the right operands bottom up (walk.h's order). */
static void dump_chain(AstDump *d, Node *top)
{
    Spine sp;
    Node *leaf = spine_of(&sp, top);
    int base = d->depth;
    for (int i = 0; i < sp.n; i++)
        node_line(d->out, sp.v[i], base + i);
    d->depth = base + sp.n - 1;
    dump_child(leaf, WALK_CODE, d);
    for (int i = sp.n - 1; i >= 0; i--) {
        d->depth = base + i;
        dump_child(sp.v[i]->binary.b, WALK_CODE, d);
    }
    d->depth = base;
    spine_free(&sp);
}

static void dump_ifs(AstDump *d, Node *n)
{
    int base = d->depth;
    for (; n && n->kind == N_IF; n = n->if_.els, d->depth++) {
        node_line(d->out, n, d->depth);
        dump_child(n->if_.cond, WALK_CODE, d);
        dump_child(n->if_.then, WALK_CODE, d);
    }
    if (n)
        dump_node(d, n);
    d->depth = base;
}

static void dump_node(AstDump *d, Node *n)
{
    if (n->kind == N_BINARY)
        return dump_chain(d, n);
    if (n->kind == N_IF)
        return dump_ifs(d, n);
    node_line(d->out, n, d->depth);
    walk_children(n, dump_child, d);
}

void dump_ast(FILE *out, const Compilation *u)
{
    AstDump d = {out, 0};
    if (u->check->program)
        dump_node(&d, u->check->program);
}

/* ------------------------------------------------------------ types */

typedef struct {
    FILE *out;
    Arena *a;
} TypeDump;

static bool type_line(Node *n, void *p)
{
    TypeDump *t = p;
    if (n->kind == N_CLOSURE)
        return true;      /* its expressions follow; the closure's own type is printed with them */
    if (n->kind == N_LET && n->let.sym && n->let.sym->ty) {
        fprintf(t->out, "  %d:%d let", n->span.line, n->span.col);
        put_id(t->out, n->let.id);
        fprintf(t->out, ": %s\n", type_str(t->a, n->let.sym->ty));
    }
    if (!n->ty)
        return true;
    fprintf(t->out, "  %d:%d %s ", n->span.line, n->span.col, node_kind_name(n->kind));
    const char *text = expand_expr_short(t->a, n, 60);
    diag_write_text(t->out, text, strlen(text));
    fprintf(t->out, ": %s\n", type_str(t->a, n->ty));
    return true;
}

void dump_types(FILE *out, const Compilation *u)
{
    TypeDump t = {out, u->arena};
    const Check *c = u->check;
    for (int i = 0; i < c->fns.n; i++) {
        Node *fn = c->fns.v[i];
        fprintf(out, "fn");
        put_id(out, fn->fn.id);
        fprintf(out, " (%s)", fn->fn.cname ? fn->fn.cname : "?");
        if (fn->fn.sym && fn->fn.sym->ty)
            fprintf(out, ": %s", type_str(u->arena, fn->fn.sym->ty));
        fputc('\n', out);
        for (int k = 0; k < fn->fn.params.n; k++) {
            Node *p = fn->fn.params.v[k];
            fprintf(out, "  %d:%d param", p->span.line, p->span.col);
            put_id(out, p->param.id);
            fprintf(out, ": %s\n", p->param.sym && p->param.sym->ty ? type_str(u->arena, p->param.sym->ty) : "?");
        }
        par_walk(fn->fn.body, type_line, &t);
    }
}

/* ------------------------------------------------------------ effects */

void dump_effects(FILE *out, const Compilation *u)
{
    const Check *c = u->check;
    for (int i = 0; i < c->fns.n; i++) {
        Node *fn = c->fns.v[i];
        FnEff *f = effects_of(c->effects, fn);
        fprintf(out, "fn");
        put_id(out, fn->fn.id);
        fprintf(out, " (%s): %s\n", fn->fn.cname ? fn->fn.cname : "?", f ? effects_row(u->arena, f) : "[]");
    }
}
