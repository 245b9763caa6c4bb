/*
 * walk.c: walking the tree, and sets of pointers.
 *
 * par_walk visits every node below a root, depth first in source order; a
 * chain (chain.h) is walked by a loop, so a million-term sum does not
 * recurse a million deep. Every pass that looks at the tree without
 * changing it walks with it.
 */
#include "chain.h"
#include "par.h"

#include <string.h>

/* ------------------------------------------------------------ walking */

static void walk_vec(const Vec *v, ParVisit f, void *c)
{
    for (int i = 0; i < v->n; i++)
        par_walk(v->v[i], f, c);
}

/* A chain (chain.h) whose top node was visited: the nodes of its spine are
 * visited top down, each before its operands as any node is, and then the
 * leaf and the right operands in source order. A node whose visit says no
 * keeps its operands unwalked, and the spine stops there. */
static void walk_chain(Node *top, ParVisit f, void *c)
{
    Spine sp;
    spine_of(&sp, NULL);
    spine_push(&sp, top);
    Node *n = top->binary.a;
    bool to_leaf = true;
    for (; n && n->kind == N_BINARY; n = n->binary.a) {
        if (!f(n, c)) {
            to_leaf = false;
            break;
        }
        spine_push(&sp, n);
    }
    if (to_leaf)
        par_walk(n, f, c);
    for (int i = sp.n - 1; i >= 0; i--)
        par_walk(sp.v[i]->binary.b, f, c);
    spine_free(&sp);
}

void par_walk(Node *n, ParVisit f, void *c)
{
    if (!n || !f(n, c))
        return;
    switch (n->kind) {
    case N_UNARY: case N_EXPR_STMT: case N_RETURN: par_walk(n->unary.a, f, c); break;
    case N_BINARY:
        if (n->binary.a && n->binary.a->kind == N_BINARY) {
            walk_chain(n, f, c);
        } else {   /* one link: no spine to keep */
            par_walk(n->binary.a, f, c);
            par_walk(n->binary.b, f, c);
        }
        break;
    case N_CALL:
        par_walk(n->call.callee, f, c);
        walk_vec(&n->call.args, f, c);
        break;
    case N_INDEX: par_walk(n->index.base, f, c); par_walk(n->index.index, f, c); break;
    case N_SLICE:
        par_walk(n->slice.base, f, c);
        par_walk(n->slice.lo, f, c);
        par_walk(n->slice.hi, f, c);
        break;
    case N_FIELD: par_walk(n->field.base, f, c); break;
    case N_COLLECT:
        par_walk(n->collect.extent, f, c);
        par_walk(n->collect.dest, f, c);
        par_walk(n->collect.keep, f, c);
        par_walk(n->collect.value, f, c);
        break;
    case N_SPAWN: par_walk(n->spawn.work, f, c); break;
    case N_CLOSURE: case N_FN: par_walk(n->fn.body, f, c); break;
    case N_TASK: case N_BLOCK: case N_UNSAFE: case N_PROGRAM: walk_vec(&n->block.stmts, f, c); break;
    case N_LET: case N_CONST: par_walk(n->let.init, f, c); break;
    case N_BUFFER: case N_SHARED: case N_PIPELINE: par_walk(n->buffer.size, f, c); break;
    case N_ASSIGN: par_walk(n->assign.lhs, f, c); par_walk(n->assign.rhs, f, c); break;
    case N_IF:
        /* an else-if chain by a loop: each else-if is visited as the else
         * before it, and a visit that says no ends the walk there */
        for (;;) {
            par_walk(n->if_.cond, f, c);
            par_walk(n->if_.then, f, c);
            n = n->if_.els;
            if (!n || n->kind != N_IF || !f(n, c))
                break;
        }
        if (n && n->kind != N_IF)
            par_walk(n, f, c);
        break;
    case N_FOR: case N_WHILE: case N_PARALLEL:
        par_walk(n->loop.lo, f, c);
        par_walk(n->loop.hi, f, c);
        par_walk(n->loop.cond, f, c);
        par_walk(n->loop.body, f, c);
        break;
    case N_LOCK: par_walk(n->lock.lock, f, c); par_walk(n->lock.body, f, c); break;
    case N_LAUNCH: par_walk(n->launch.call, f, c); break;
    case N_COOP: par_walk(n->coop.body, f, c); par_walk(n->coop.finish, f, c); break;
    default: break;
    }
}

/* A set of pointers: a list searched for every name a lane reads was
 * quadratic in its body. */
static unsigned ptr_hash(const void *p)
{
    uintptr_t v = (uintptr_t)p;
    v ^= v >> 17;
    v *= 0xed5ad4bbu;
    return (unsigned)(v ^ (v >> 11));
}

bool ptrset_has(const PtrSet *s, const void *p)
{
    if (!s->cap || !p)
        return false;
    for (int i = (int)(ptr_hash(p) & (unsigned)(s->cap - 1)); s->keys[i]; i = (i + 1) & (s->cap - 1))
        if (s->keys[i] == p)
            return true;
    return false;
}

bool ptrset_add(Arena *a, PtrSet *s, const void *p)
{
    if (!p || ptrset_has(s, p))
        return false;
    if (2 * (s->n + 1) > s->cap) {   /* at most half full */
        PtrSet old = *s;
        s->cap = old.cap ? 2 * old.cap : 16;
        s->keys = arena_alloc(a, sizeof *s->keys * (size_t)s->cap);
        s->n = 0;
        for (int i = 0; i < old.cap; i++)
            if (old.keys[i])
                ptrset_add(a, s, old.keys[i]);
    }
    int i = (int)(ptr_hash(p) & (unsigned)(s->cap - 1));
    while (s->keys[i])
        i = (i + 1) & (s->cap - 1);
    s->keys[i] = p;
    s->n++;
    return true;
}

