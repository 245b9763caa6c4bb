/*
 * coop_phase.c: the phase rule of a cooperative region's shared arrays
 * (devices.md, "Cooperative regions"), over the accesses check_coop.c's
 * run of one block records: E-COOP-CONFLICT, E-COOP-UNORDERED,
 * E-COOP-REUSE, E-COOP-UNWRITTEN and E-COOP-UNDECIDED with both threads,
 * the element and both lines.
 */
#include "coop.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ messages */

/* "t = 255" or "(tx = 3, ty = 1)". */
const char *coop_thread_str(const Block *B, int64_t flat)
{
    const char *s = "";
    for (int i = 0; i < B->nt; i++) {
        const Sym *y = B->tsyms->v[i];
        s = arena_printf(B->a, "%s%s%s = %lld", s, i ? ", " : "", y->id, (long long)(flat % B->ext[i]));
        flat /= B->ext[i];
    }
    return B->nt > 1 ? arena_printf(B->a, "(%s)", s) : s;
}

/* Who makes an access, in a message: "thread t = 255", or past the block's
 * threads a warp as one reader or writer of a fragment (run_frag). */
const char *coop_who(const Block *B, int64_t flat)
{
    if (flat >= B->T)
        return arena_printf(B->a, "warp %lld as a whole (its fragment %s)", (long long)((flat - B->T) / 2),
                            (flat - B->T) % 2 ? "store" : "load");
    return arena_printf(B->a, "thread %s", coop_thread_str(B, flat));
}

void coop_report(Block *B, Span at, DiagCode code, const char *help, const char *msg)
{
    B->failed = true;
    diag_error(B->x->sink, at, code, help, "%s", msg);
}

/* ------------------------------------------------------------ the phase rule */

/* Program order between two accesses of one phase (the unrolled loops'
 * iterations, then the place in the body): the same for every thread. */
static int order_cmp(const Ev *a, const Ev *b)
{
    int n = a->niter < b->niter ? a->niter : b->niter;
    for (int i = 0; i < n; i++)
        if (a->iter[i] != b->iter[i])
            return a->iter[i] < b->iter[i] ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static int ev_cmp(const void *pa, const void *pb)
{
    const Ev *a = *(Ev *const *)pa, *b = *(Ev *const *)pb;
    if (a->elem != b->elem)
        return a->elem < b->elem ? -1 : 1;
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    return order_cmp(a, b);
}

static const char *elem_str(Block *B, const Ev *e)
{
    return arena_printf(B->a, "%s[%lld]", e->arr->id, (long long)e->elem);
}

/* Two threads' accesses of one element in one phase, at least one a write. */
static void report_pair(Block *B, const Ev *w, const Ev *o)
{
    const char *el = elem_str(B, w);
    if (o->kind == EV_WRITE) {
        const Ev *later = order_cmp(o, w) > 0 ? o : w, *first = later == o ? w : o;
        coop_report(B, later->node->span, E_COOP_CONFLICT, "let each thread write its own elements in a phase, or put a barrier between the writes",
               arena_printf(B->a, "%s both write %s in one phase (lines %d and %d)",
                            first->thread < B->T && later->thread < B->T
                                ? arena_printf(B->a, "threads %s and %s", coop_thread_str(B, first->thread),
                                               coop_thread_str(B, later->thread))
                                : arena_printf(B->a, "%s and %s", coop_who(B, first->thread), coop_who(B, later->thread)),
                            el, first->node->span.line,
                            later->node->span.line));
    } else if (order_cmp(w, o) < 0) {
        coop_report(B, o->node->span, E_COOP_UNORDERED,
               arena_printf(B->a, "put a barrier after line %d and before line %d runs", w->node->span.line,
                            o->node->span.line),
               arena_printf(B->a, "%s reads %s at line %d, which %s writes at line %d in the same phase: "
                            "nothing makes the write happen first", coop_who(B, o->thread), el, o->node->span.line,
                            coop_who(B, w->thread), w->node->span.line));
    } else {
        coop_report(B, w->node->span, E_COOP_REUSE,
               arena_printf(B->a, "put a barrier between the read (line %d) and the write (line %d), or write into "
                            "another shared array", o->node->span.line, w->node->span.line),
               arena_printf(B->a, "%s writes %s at line %d, which %s reads at line %d in the same phase: "
                            "it may not have read it yet", coop_who(B, w->thread), el, w->node->span.line,
                            coop_who(B, o->thread), o->node->span.line));
    }
}

/* Where an access is in the body: its node, then the unrolled loops'
 * iterations; then the thread. */
static int point_cmp(const void *pa, const void *pb)
{
    const Ev *a = *(Ev *const *)pa, *b = *(Ev *const *)pb;
    if (a->node != b->node)
        return (uintptr_t)a->node < (uintptr_t)b->node ? -1 : 1;
    if (a->niter != b->niter)
        return a->niter < b->niter ? -1 : 1;
    for (int i = 0; i < a->niter; i++)
        if (a->iter[i] != b->iter[i])
            return a->iter[i] < b->iter[i] ? -1 : 1;
    return a->thread < b->thread ? -1 : a->thread > b->thread;
}

/* Two threads that write at an index the same in every thread, at one
 * point of the body (one iteration of each unrolled loop), with no
 * condition that may differ between threads left undecided around them:
 * whatever the element is, they both write it whenever the write runs.
 * Returns the pair, or false. */
static bool uniform_twins(Block *B, Ev **evs, int n, const Ev **first, const Ev **second)
{
    Ev **w = arena_alloc(B->a, sizeof *w * (size_t)(n + 1));
    int m = 0;
    for (int i = 0; i < n; i++)
        if (evs[i]->kind == EV_WRITE && evs[i]->uniform && !evs[i]->known && evs[i]->together)
            w[m++] = evs[i];
    qsort(w, (size_t)m, sizeof *w, point_cmp);
    for (int i = 1; i < m; i++) {
        const Ev *a = w[i - 1], *b = w[i];
        bool same = a->node == b->node && a->niter == b->niter && a->thread != b->thread;
        for (int k = 0; same && k < a->niter; k++)
            same = a->iter[k] == b->iter[k];
        if (same) {
            *first = w[i - 1];
            *second = w[i];
            return true;
        }
    }
    return false;
}

static const char *index_text(Block *B, const Ev *e)
{
    Node *x = e->node && e->node->kind == N_INDEX ? e->node->index.index : NULL;
    return x ? expand_expr_short(B->a, x, 40) : "?";
}

/* A refusal for an access at an index the run cannot follow, in a phase
 * that writes the array. */
static void report_undecided(Block *B, const Ev *unknown, const Ev *write)
{
    const char *verb = unknown->kind == EV_WRITE ? "writes" : "reads";
    Node *x = unknown->node && unknown->node->kind == N_INDEX ? unknown->node->index.index : NULL;
    Node *atomic = x ? coop_atomic_origin(B->body, x) : NULL;
    if (atomic) {
        coop_report(B, unknown->node->span, E_COOP_UNDECIDED, "index a shared array that a phase writes by thread names, loop "
               "counters and constants: the slots an atomic counter hands out are not followed",
               arena_printf(B->a, "%s %s %s[%s] (line %d) at an index an atomic update hands out (`%s`, line %d), "
                            "which differs between threads, in a phase where %s is written (line %d): the checker "
                            "cannot tell which threads meet", coop_who(B, unknown->thread), verb, unknown->arr->id,
                            index_text(B, unknown), unknown->node->span.line, expand_expr_short(B->a, atomic, 40),
                            atomic->span.line, write->arr->id, write->node->span.line));
        return;
    }
    coop_report(B, unknown->node->span, E_COOP_UNDECIDED, "index a shared array that a phase writes by thread names, "
           "loop counters and constants",
           arena_printf(B->a, "%s %s %s at an index the checker cannot follow (line %d), in a phase where "
                        "%s is written (line %d): it cannot tell which threads meet",
                        coop_who(B, unknown->thread), verb, unknown->arr->id, unknown->node->span.line,
                        write->arr->id, write->node->span.line));
}

/* One phase of one array: its accesses sorted by element. */
static void check_phase(Block *B, Ev **evs, int n)
{
    const Ev *atomic = NULL, *plain = NULL, *unknown = NULL, *write = NULL;
    for (int i = 0; i < n; i++) {
        const Ev *e = evs[i];
        if (e->kind == EV_ATOMIC)
            atomic = atomic ? atomic : e;
        else
            plain = plain ? plain : e;
        if (!e->known)
            unknown = unknown ? unknown : e;
        if (e->kind == EV_WRITE)
            write = write ? write : e;
    }
    if (atomic && plain) {
        coop_report(B, plain->node->span, E_ATOMIC_MIXED, "keep the atomic updates and the plain accesses in different phases (a barrier between)",
               arena_printf(B->a, "%s is updated atomically (line %d) and touched plainly (line %d) in one phase",
                            atomic->arr->id, atomic->node->span.line, plain->node->span.line));
        return;
    }
    bool one_thread = true;   /* the rule is about two threads: one alone meets nobody */
    for (int i = 1; i < n && one_thread; i++)
        one_thread = evs[i]->thread == evs[0]->thread;
    if (!write || one_thread)
        return;
    const Ev *ta, *tb;
    if (uniform_twins(B, evs, n, &ta, &tb)) {
        coop_report(B, tb->node->span, E_COOP_CONFLICT, "let one thread write it (`if t == 0 { ... }`), or index it by the "
               "thread's names",
               arena_printf(B->a, "threads %s and %s both write %s[%s] in one phase (line %d): the index is the same in "
                            "every thread, so they write one element%s", coop_thread_str(B, ta->thread),
                            coop_thread_str(B, tb->thread), ta->arr->id, index_text(B, ta), ta->node->span.line,
                            ta->sure && tb->sure ? "" : " whenever the write runs"));
        return;
    }
    if (unknown) {
        report_undecided(B, unknown, write);
        return;
    }
    qsort(evs, (size_t)n, sizeof *evs, ev_cmp);
    for (int i = 0; i < n && !B->failed;) {
        int j = i;
        while (j < n && evs[j]->elem == evs[i]->elem)
            j++;
        /* within one element: a write and another thread's access */
        for (int a = i; a < j && !B->failed; a++) {
            if (evs[a]->kind != EV_WRITE)
                continue;
            const Ev *other = NULL;
            for (int b = i; b < j && !other; b++)
                if (evs[b]->thread != evs[a]->thread && evs[b]->kind == EV_WRITE)
                    other = evs[b];
            for (int b = i; b < j && !other; b++)
                if (evs[b]->thread != evs[a]->thread)
                    other = evs[b];
            if (other)
                report_pair(B, evs[a], other);
        }
        i = j;
    }
}

static bool is_zeroed(const Sym *arr)
{
    return arr->decl && arr->decl->kind == N_SHARED && arr->decl->buffer.zeroed;
}

/* E-COOP-UNWRITTEN: every element of an unzeroed array a thread reads (an
 * atomic update reads too) was surely written first, by the thread earlier
 * in the phase or by any thread in an earlier phase. */
static bool check_unwritten(Block *B, const Sym *arr, Ev **evs, int n, int phases, bool report_it)
{
    int64_t len;
    if (!arr->ty || !arr->ty->extent || !sym_const(B->a, arr->ty->extent, &len) || len <= 0 || len > 65536)
        return false;
    size_t cells = (size_t)(phases + 1) * (size_t)len;
    unsigned char *before = arena_alloc(B->a, cells), *mine = arena_alloc(B->a, (size_t)len);
    for (int i = 0; i < n; i++) {
        const Ev *e = evs[i];
        if (e->kind == EV_WRITE && e->sure && e->known && e->elem >= 0 && e->elem < len)
            for (int p = e->phase + 1; p <= phases; p++)
                before[(size_t)p * (size_t)len + (size_t)e->elem] = 1;
    }
    int64_t thread = -1;
    int phase = -1;
    for (int i = 0; i < n; i++) {
        const Ev *e = evs[i];
        if (e->thread != thread || e->phase != phase) {
            memset(mine, 0, (size_t)len);
            thread = e->thread;
            phase = e->phase;
        }
        const unsigned char *done = before + (size_t)e->phase * (size_t)len;
        if (e->kind == EV_WRITE) {
            if (e->sure && e->known && e->elem >= 0 && e->elem < len)
                mine[e->elem] = 1;
            continue;
        }
        bool ok;
        if (e->known) {
            ok = e->elem < 0 || e->elem >= len || done[e->elem] || mine[e->elem];   /* out of range: the guard's */
        } else {
            ok = true;
            for (int64_t k = 0; k < len && ok; k++)
                ok = done[k];
        }
        if (ok)
            continue;
        if (!report_it)
            return false;
        coop_report(B, e->node->span, E_COOP_UNWRITTEN, "write it first, in this thread or in another before a barrier, or "
               "declare the array `= zeroed`",
               e->known ? arena_printf(B->a, "%s is declared without `= zeroed`, and %s reads %s at line %d, and no "
                                       "thread surely wrote that element first", arr->id, coop_who(B, e->thread),
                                       elem_str(B, e), e->node->span.line)
                        : arena_printf(B->a, "%s is declared without `= zeroed`, and %s reads it at an index the "
                                       "checker cannot follow (line %d) before every element was surely written",
                                       arr->id, coop_who(B, e->thread), e->node->span.line));
        return false;
    }
    return true;
}

/* The accesses of one array in the runs' order (by thread, then program
 * order): the unwritten rule, then the phase rule phase by phase. */
void coop_check_array(Block *B, const Sym *arr, const Vec *all, int phases)
{
    Ev **evs = arena_alloc(B->a, sizeof *evs * (size_t)(all->n + 1));
    int n = 0;
    for (int i = 0; i < all->n; i++)
        if (((Ev *)all->v[i])->arr == arr)
            evs[n++] = all->v[i];
    if (!is_zeroed(arr)) {
        check_unwritten(B, arr, evs, n, phases, true);
    } else {
        /* the same rule decides whether any read can see the zeroing: where
         * none can, the device skips it (emit_coop.c); every check of the
         * region must agree */
        Node *d = arr->decl;
        bool unseen = check_unwritten(B, arr, evs, n, phases, false);
        d->buffer.zero_seen = d->buffer.zero_seen || !unseen;
        d->buffer.zero_probed = true;
    }
    Ev **ph = arena_alloc(B->a, sizeof *ph * (size_t)(n + 1));
    for (int p = 0; p <= phases && !B->failed; p++) {
        int m = 0;
        for (int i = 0; i < n; i++)
            if (evs[i]->phase == p)
                ph[m++] = evs[i];
        check_phase(B, ph, m);
    }
}

