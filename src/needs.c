/*
 * needs.c: what a checked program needs of its device target, from its
 * typed tree (devices.md, "The device target"; numerics.md, "Tensor-core
 * fragments").
 *
 *   bf16       a value of a bf16 type computed in device code: a device
 *              lane or collector, or a function a device lane or a kernel
 *              reaches (fn.on_device). Host code converts storage floats in
 *              software, so a bf16 on the host needs nothing of the target.
 *   wmma       a mma_unordered(m, n, k, c, a, b) over @device views (and
 *              bf16 for bf16 operands): cairn_mma.h's tiling
 *   fragments  a fragment type anywhere (frag.h): its family's feature
 *              (wmma, mma_sync, tcgen05), and bf16 for a bf16 fragment. A
 *              fragment is a device construct wherever it is written.
 *
 * Requires: a program check_program accepted (types on every expression,
 * fn.on_device set by the device rules).
 * Guarantees: the features, a bit per TargetFeature, with the first place
 * each arises, for E-TARGET-FEATURE and the receipt's "needed".
 */
#include "frag.h"
#include "par.h"

#include <string.h>

typedef struct {
    unsigned bits;
    Span *at;             /* at[f]: where need f first arose */
    bool device;          /* walking device code */
} Needs;

static void need(Needs *n, unsigned bits, Span where)
{
    for (int f = 0; f < TF_NFEATURES; f++)
        if ((bits >> f & 1) && !(n->bits >> f & 1)) {
            n->at[f] = where;
            n->bits |= 1u << f;
        }
}

/* The features a type needs: its fragments', and bf16 in device code;
 * through views, arrays, refs and function types. */
static unsigned type_needs(const Type *t, bool device, int depth)
{
    unsigned bits = 0;
    for (; t && depth < 64; t = t->elem, depth++) {
        if (t->kind == TY_FRAGMENT)
            return bits | frag_needs(t);
        if (t->kind == TY_BF16 && device)
            bits |= 1u << TF_BF16;
        if (t->kind == TY_FN) {
            for (int i = 0; i < t->params.n; i++)
                bits |= type_needs(t->params.v[i], device, depth + 1);
            return bits | type_needs(t->ret, device, depth + 1);
        }
    }
    return bits;
}

static bool device_visit(Node *n, void *p)
{
    if (n->ty)
        need(p, type_needs(n->ty, true, 0), n->span);
    return true;
}

/* Host code: its device regions, collectors and cooperative regions are
 * device code, and a device mma_unordered runs on WMMA (its 8-bit operands
 * staged as f16, its bf16 ones as bf16). */
static bool host_visit(Node *n, void *p)
{
    if ((n->kind == N_PARALLEL && n->loop.device) || (n->kind == N_COLLECT && n->collect.device) ||
        (n->kind == N_COOP && n->coop.device)) {
        par_walk(n, device_visit, p);
        return false;
    }
    if (n->kind == N_CALL && n->call.ck == CALL_BUILTIN && n->call.builtin == B_MMA_UNORDERED &&
        n->call.args.n == 6 && mma_on_device(n)) {
        const Type *a = ((Node *)n->call.args.v[4])->ty;
        need(p, 1u << TF_WMMA | (a && a->elem && a->elem->kind == TY_BF16 ? 1u << TF_BF16 : 0), n->span);
    }
    if (n->ty)
        need(p, type_needs(n->ty, false, 0), n->span);
    return true;
}

unsigned target_needs(const Check *c, Span at[TF_NFEATURES])
{
    memset(at, 0, TF_NFEATURES * sizeof *at);
    Needs n = {0, at, false};
    for (int i = 0; i < c->fns.n; i++) {
        Node *fn = c->fns.v[i];
        bool device = fn->fn.on_device || fn->fn.is_kernel;
        for (int k = 0; k < fn->fn.params.n; k++)
            (device ? device_visit : host_visit)(fn->fn.params.v[k], &n);
        par_walk(fn->fn.body, device ? device_visit : host_visit, &n);
    }
    return n.bits;
}
