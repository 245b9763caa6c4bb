/*
 * device.c: the device target of one compilation unit (target.h).
 *
 * The target is resolved once a unit, before the checker runs, so every
 * stage receives the same one: a target that --device-target or the
 * manifest names is parsed and validated first (E-TARGET, E-TARGET-TOOLKIT),
 * and a program is not checked against a target that cannot be had. Without
 * a named target, only a program with device work needs one: it takes the
 * one GPU nvidia-smi reports, and with none it is refused (E-TARGET).
 * Nothing defaults to -arch=native. A host-only program with no target
 * named has none, and its receipt says "device_target": null.
 */
#include "cli.h"
#include "../par.h"

static void report(Unit *u, const TargetError *err)
{
    Span nowhere = {0};
    diag_error(&u->sink, nowhere, err->code, err->help[0] ? err->help : NULL, "%s", err->msg);
}

static bool settle(Unit *u, Target *t)
{
    TargetError err;
    if (!target_validate(u->arena, t, &err)) {
        report(u, &err);
        return false;
    }
    u->target = t;
    u->check.device_target = t->name;
    return true;
}

bool unit_target_named(Unit *u, const Options *o, const char *manifest_target, const char *manifest)
{
    if (u->target_tried)
        return u->target_ok;
    u->target_tried = true;
    u->target_ok = true;
    const char *flag = o ? o->device_target : NULL;
    if (!flag && !manifest_target)
        return true;
    Target *t = arena_alloc(u->arena, sizeof *t);
    TargetError err;
    if (!target_resolve(u->arena, flag, manifest_target, manifest, t, &err)) {
        report(u, &err);
        return u->target_ok = false;
    }
    return u->target_ok = settle(u, t);
}

/* A program with device work and no named target: nvidia-smi's GPU. */
static bool target_from_gpu(Unit *u)
{
    Target *t = arena_alloc(u->arena, sizeof *t);
    TargetError err;
    if (!target_resolve(u->arena, NULL, NULL, NULL, t, &err)) {
        report(u, &err);
        return false;
    }
    return settle(u, t);
}

/* ------------------------------------------------------------ needs */

/* What device code needs of the target: bf16 where device code computes a
 * value of a bf16 type (a device lane, or a function a device lane or a
 * kernel reaches). Host code converts storage floats in software, so a
 * bf16 on the host needs nothing of the target. The first place each need
 * arises is kept for E-TARGET-FEATURE. */
typedef struct {
    unsigned bits;
    Span at[TF_NFEATURES];
} Needs;

static bool type_has(const Type *t, TypeKind k)
{
    for (int depth = 0; t && depth < 64; t = t->elem, depth++) {
        if (t->kind == k)
            return true;
        if (t->kind == TY_FN) {
            for (int i = 0; i < t->params.n; i++)
                if (type_has(t->params.v[i], k))
                    return true;
            return type_has(t->ret, k);
        }
    }
    return false;
}

static void need(Needs *n, TargetFeature f, Span at)
{
    if (!(n->bits >> f & 1))
        n->at[f] = at;
    n->bits |= 1u << f;
}

static bool device_need_visit(Node *n, void *p)
{
    if (n->ty && type_has(n->ty, TY_BF16))
        need(p, TF_BF16, n->span);
    return true;
}

/* Host code: only its device regions and collectors are device code. */
static bool host_need_visit(Node *n, void *p)
{
    if ((n->kind == N_PARALLEL && n->loop.device) || (n->kind == N_COLLECT && n->collect.device)) {
        par_walk(n, device_need_visit, p);
        return false;
    }
    return true;
}

static Needs device_needs(Unit *u)
{
    Needs n = {0};
    for (int i = 0; i < u->check.fns.n; i++) {
        Node *fn = u->check.fns.v[i];
        bool device = fn->fn.on_device || fn->fn.is_kernel;
        for (int k = 0; device && k < fn->fn.params.n; k++)
            device_need_visit(fn->fn.params.v[k], &n);
        par_walk(fn->fn.body, device ? device_need_visit : host_need_visit, &n);
    }
    return n;
}

/* devices.md: a program needing a feature the target lacks is refused, and
 * emulation refuses it the same way. */
static bool refuse_lacking(Unit *u, const Needs *n)
{
    unsigned lacking = n->bits & ~u->target->provided;
    for (int f = 0; f < TF_NFEATURES; f++)
        if (lacking >> f & 1)
            diag_error(&u->sink, n->at[f], E_TARGET_FEATURE,
                       arena_printf(u->arena, "name a target that has %s (sm_80 or later), or keep %s values out "
                                    "of device code: convert on the host, or compute in f32 on the device",
                                    target_feature_name(f), target_feature_name(f)),
                       "device code needs %s, which the target %s lacks", target_feature_name(f), u->target->name);
    return !lacking;
}

bool unit_check_target(Unit *u, const Options *o, const char *manifest_target, const char *manifest)
{
    if (!unit_target_named(u, o, manifest_target, manifest))
        return false;
    bool ok = unit_check(u);
    if (!u->program)
        return false;
    if (!u->target && u->check.device_work > 0 && !target_from_gpu(u))
        ok = false;
    if (u->target) {
        Needs n = ok ? device_needs(u) : (Needs){0};
        u->target->needed = (target_needed(u->arena, &u->src) & ~(1u << TF_BF16)) | n.bits;
        if (ok && !refuse_lacking(u, &n))
            ok = false;
    }
    return ok;
}
