/*
 * chain.h: walking operator chains without recursion.
 *
 * `a + b + c + d` parses as (((a + b) + c) + d): a chain is a run of binary
 * nodes down the left operand, its "spine". Hand-written code has chains of
 * a few terms; generated code has chains of a million, and a walker that
 * recurses into the left operand runs off the C stack long before that. So
 * every walker over expressions (checker, effects, lanes, printer, emitter)
 * goes down a spine with a loop and keeps the nodes it must come back to in
 * a Spine. Right operands and every other child nest only as deep as the
 * parser lets source nest (MAX_DEPTH in parse.c), so recursing on them is
 * bounded.
 *
 * A Spine holds the binary nodes of a chain from the top down:
 *     v[0] = e, v[i + 1] = v[i]->binary.a, while that is N_BINARY,
 * and the first left operand that is not binary is the chain's leaf. In
 * source order the leaf comes first, then v[n-1]'s right operand, then
 * v[n-2]'s, up to v[0]'s. Short chains stay in the struct (on the caller's
 * C stack); longer ones move to memory of their own, freed by spine_free.
 * That memory is not the compilation's arena because walkers that have no
 * arena at hand (par_walk, ast_equal) need it too, and a chain walked many
 * times would otherwise leave a copy in the arena each time.
 */
#ifndef CAIRN_CHAIN_H
#define CAIRN_CHAIN_H

#include "cairn.h"

enum { SPINE_LOCAL = 16 };

typedef struct {
    Node **v;
    int n, cap;
    Node *local[SPINE_LOCAL];
} Spine;

/* Fills s with e's spine and returns the leaf. When e is not N_BINARY the
 * spine is empty and the leaf is e. */
Node *spine_of(Spine *s, const Node *e);
/* Adds one node at the bottom of a spine being built by hand. */
void spine_push(Spine *s, Node *n);
void spine_free(Spine *s);

/* How many binary nodes are on e's spine, without keeping them. */
long spine_length(const Node *e);

#endif
