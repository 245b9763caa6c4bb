/*
 * lane.h: one lane of a region as the race rule sees it, shared by the
 * walk of its body (check_par.c) and the rule itself (race.c).
 *
 * Every access of an outside view is normalized once, where the walk meets
 * it, to its root view (a parameter or a buffer) and the offset of its first
 * element there as a form of the symbolic core (sym.h), with its length:
 * whatever the depth of slicing and of let-bound parts. The environment
 * follows the lane's lets, assignments and loops, so an offset computed
 * through `let mut` or a loop counter is known where the access happens.
 */
#ifndef CAIRN_LANE_H
#define CAIRN_LANE_H

#include "check.h"
#include "par.h"
#include "sym.h"

typedef enum { AK_READ, AK_WRITE, AK_ATOMIC } AccKind;

/* One condition on the path to an access (sym.h), its form taken where
 * the `if` is; d any: one the core cannot state (the access may run). */
typedef SCond Cond;

typedef struct {
    AccKind kind;
    Sym *view;            /* the root; NULL: a view expression the checker does not follow (any view) */
    Node *node;           /* as written, for messages */
    SForm lo;             /* the first element's offset in the root (loop counters in it) */
    SForm len;            /* how many elements; any: to the end of the view */
    bool whole;           /* the whole root (a view passed on as it is) */
    bool by_collector;    /* a pooled scan's or compaction's own write of its destination */
    const char *how;      /* "passed as rw to f": for messages */
    Span at;
    /* set by the rule: the footprint over every iteration of the loops */
    SForm flo, flen;
    /* an element reached through a part lies inside the part (its guard
     * says so): the part's offset and length, any when there is none */
    SForm clo, clen, fclo, fclen;
    /* the conditions the access runs under: the witness search runs it only
     * in the lanes (and iterations) where they hold */
    Cond **conds;
    int nconds;
} Acc;

/* A let-bound part, as its `let` made it. */
typedef struct {
    Sym *let;
    Sym *root;            /* NULL: not followed */
    SForm off, len;
    bool whole;
} ViewLet;

typedef struct {
    Arena *a;             /* scratch: given back after each region (arena marks) */
    Arena *keep;          /* what outlives the region: the reports already made */
    Sink *sink;           /* NULL: silent (par_fusable) */
    EffTable *eff;
    Vec *reported;        /* "line:col:code" already said */
    Sym *lane[2];         /* the index (two when fusing) */
    const char *var;      /* its name as written */
    Node *region;
    Node *extent;         /* the region's extent (NULL: a collector's, unknown here) */
    PtrSet inside;        /* Sym* declared in the lane */
    Vec acc;              /* Acc* */
    Vec written;          /* Sym*: outside views written in the lane */
    Vec views;            /* ViewLet*: parts bound by lets */
    Vec path;             /* Cond*: the conditions of the ifs around the walk's position */
    SEnv *env;
    SKey *key;            /* the lane index's unknown */
    int unrolled;         /* iterations of constant loops walked one by one, nested (a product) */
    FILE *dump;           /* --dump=accesses: print each access */
    int errors;
} Lane;

bool lane_report(Lane *L, Span at, DiagCode code);
#define LANE_ERROR(L, at, code, help, ...)                                    \
    do {                                                                      \
        if (lane_report((L), (at), (code)))                                   \
            diag_error((L)->sink, (at), (code), (help), __VA_ARGS__);         \
    } while (0)
const char *lane_eq(const Lane *L, long long v);
const char *region_what(const Lane *L);

/* race.c: the race rule over the accesses a walk recorded. */
void race_check(Lane *L);

#endif
