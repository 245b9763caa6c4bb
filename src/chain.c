/*
 * chain.c: the Spine of an operator chain (see chain.h).
 */
#include "chain.h"

#include <stdlib.h>
#include <string.h>

void spine_push(Spine *s, Node *n)
{
    if (!s->v) {
        s->v = s->local;
        s->cap = SPINE_LOCAL;
    }
    if (s->n == s->cap) {
        /* beyond the local slots: memory of its own, doubled as it grows */
        int cap = s->cap * 2;
        Node **nv = s->v == s->local ? malloc((size_t)cap * sizeof *nv)
                                     : realloc(s->v, (size_t)cap * sizeof *nv);
        if (!nv) {
            fprintf(stderr, "cairn: out of memory\n");
            exit(2);
        }
        if (s->v == s->local)
            memcpy(nv, s->local, sizeof s->local);
        s->v = nv;
        s->cap = cap;
    }
    s->v[s->n++] = n;
}

Node *spine_of(Spine *s, const Node *e)
{
    s->v = s->local;
    s->n = 0;
    s->cap = SPINE_LOCAL;
    Node *n = (Node *)e;
    while (n && n->kind == N_BINARY) {
        spine_push(s, n);
        n = n->binary.a;
    }
    return n;
}

void spine_free(Spine *s)
{
    if (s->v && s->v != s->local)
        free(s->v);
    s->v = s->local;
    s->n = 0;
}

long spine_length(const Node *e)
{
    long n = 0;
    for (; e && e->kind == N_BINARY; e = e->binary.a)
        n++;
    return n;
}
