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
 *
 * A named target reaches the checker whole (Check.target) before it runs.
 * After checking, the program's needs come from its typed tree
 * (target_needs, needs.c) and a need the target lacks is refused.
 */
#include "cli.h"

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
    u->check.target = t;
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

/* devices.md: a program needing a feature the target lacks is refused, and
 * emulation refuses it the same way. */
static bool refuse_lacking(Unit *u, unsigned needed, const Span at[TF_NFEATURES])
{
    unsigned lacking = needed & ~u->target->provided;
    for (int f = 0; f < TF_NFEATURES; f++)
        if (lacking >> f & 1)
            diag_error(&u->sink, at[f], E_TARGET_FEATURE,
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
    if (u->target && ok) {
        Span at[TF_NFEATURES];
        u->target->needed = target_needs(&u->check, at);
        if (!refuse_lacking(u, u->target->needed, at))
            ok = false;
    }
    return ok;
}
