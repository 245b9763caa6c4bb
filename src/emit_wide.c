/*
 * emit_wide.c: load_wide and store_wide as calls of the runtime's
 * cn_wide_load_T / cn_wide_store_T (runtime/cairn_wide.h).
 *
 * Requires: a call the checker accepted (wide.h reads it).
 * Guarantees: one emitted text for every machine: the runtime checks the
 * bounds and the alignment first, then moves the K elements in one vector
 * access on the device (with the hint's cache operator when the view is
 * global memory) and as K ordinary accesses elsewhere. A load is written
 *
 *     cn_arr_4_f32 cn_wK;
 *     cn_wide_load_f32(x, i, 4, cn_wK.v, CN_CACHE_STREAMING, 1, "x", CN_AT(3, 13));
 *
 * and its value is cn_wK, an Array local that nvcc keeps in registers; a
 * store passes the Array's elements the same way, from a local.
 */
#include "emit.h"
#include "wide.h"

/* The runtime's arguments after the view, the index and the elements. */
static const char *tail(Ex *x, Node *e)
{
    return emit_fmt(x, "%s, %d, %s, %s", wide_hint_rt(wide_hint(e)), wide_global(e) ? 1 : 0,
                    emit_src_lit(x, wide_view(e)), emit_at(x, e->span));
}

const char *emit_wide(Ex *x, Node *e)
{
    x->uses_wide = true;
    bool store = wide_is_store(e);
    Node *ops[3] = {wide_view(e), wide_index(e), wide_value(e)};
    const char *v[3];
    emit_operands(x, ops, store ? 3 : 2, NULL, v);
    const char *suf = emit_suffix(wide_view(e)->ty->elem);
    long long k = (long long)wide_count(e);
    if (store) {
        const char *src = emit_tmp(x, "w");
        emit_line(x, "const %s %s = %s;", emit_ctype(x, ops[2]->ty), src, v[2]);
        return emit_fmt(x, "cn_wide_store_%s(%s, %s, %lld, %s.v, %s)", suf, v[0], v[1], k, src, tail(x, e));
    }
    const char *dst = emit_tmp(x, "w");
    emit_line(x, "%s %s;", emit_ctype(x, e->ty), dst);
    emit_line(x, "cn_wide_load_%s(%s, %s, %lld, %s.v, %s);", suf, v[0], v[1], k, dst, tail(x, e));
    return dst;
}
