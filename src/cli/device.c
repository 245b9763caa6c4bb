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

bool unit_check_target(Unit *u, const Options *o, const char *manifest_target, const char *manifest)
{
    if (!unit_target_named(u, o, manifest_target, manifest))
        return false;
    bool ok = unit_check(u);
    if (!u->program)
        return false;
    if (!u->target && u->check.device_work > 0 && !target_from_gpu(u))
        ok = false;
    if (u->target)
        u->target->needed = target_needed(u->arena, &u->src);
    return ok;
}
