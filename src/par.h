/*
 * par.h: host parallelism (issue 4), shared by the checker's lane rules
 * (check_par.c), the effect rows (effects.c), the lowering of regions,
 * collectors and atomics (emit_par.c) and `cairn explain` (cli/explain.c).
 *
 * Everything here reads a program check_program has typed: every name has
 * its symbol, every expression its type, every call its kind.
 */
#ifndef CAIRN_PAR_H
#define CAIRN_PAR_H

#include "cairn.h"
#include "walk.h"

/* ------------------------------------------------------------ effects */

/* The effects of a function, as `cairn explain` spells them (sorted):
 * alloc, atomic, io, libm, par:host, read:NAME, trap, write:NAME. EF_SYNC
 * (locks, tasks, waits, transfers) and EF_MMA (the whole-matrix tensor-core
 * multiply, which a lane must not reach) are kept for the lane rules and
 * not printed; a multiply over @device views is par:device too. */
typedef enum {
    EF_ALLOC, EF_ATOMIC, EF_IO, EF_LIBM, EF_PAR, EF_TRAP, EF_SYNC, EF_MMA, EF_VALUE,
    /* device work (issue 5), printed par:device, gpu_alloc + gpu_free, copy:host, queue, unified */
    EF_DEV,               /* a device region or collector (lanes on the device) */
    EF_GPU_ALLOC,         /* a device buffer, or a device collector's scratch (the arena may grow) */
    EF_HOST_COPY,         /* a transfer with a host side */
    EF_QUEUE,             /* spawn: queued work */
    EF_UNIFIED,           /* a @unified element reached: the host reads it without a CUDA call */
    EF_ZERO_INIT,         /* a cooperative region's shared array declared `= zeroed`, printed zero_init */
    EF_HOST_ATOMIC,       /* an atomic update outside a device region (one inside a device lane is
                             device work): a way for the host to observe, not printed (EF_ATOMIC is) */
    EF_N
} EffBit;

typedef struct FnEff FnEff;
struct FnEff {
    Node *fn;             /* N_FN */
    unsigned bits;        /* 1u << EffBit */
    Node *why[EF_N];      /* the construct that brings the bit, or the call that does */
    FnEff *via[EF_N];     /* when why is a call: the callee's effects */
    Vec reads, writes;    /* Sym*: parameters and buffers of fn */
    Vec callees;          /* FnEff*: the functions it calls directly */
    PtrSet read_set, write_set, callee_set;   /* the same three, to test membership */
    bool visited;         /* ordering the fixpoint */
    long walked_at;       /* the fixpoint's clock when its body was last walked */
    long changed_at;      /* ... when its row last grew (0: never) */
};

struct EffTable {
    Arena *a;
    Vec fns;              /* FnEff*, in c->fns order */
};

/* Every function's effect row: its body and everything it calls, to a
 * fixpoint over the call graph. */
EffTable *effects_compute(Arena *a, const Check *c);
FnEff *effects_of(const EffTable *t, const Node *fn);
/* "[par:host, read:x, trap, write:out]" */
const char *effects_row(Arena *a, const FnEff *f);
/* How fn comes to have bit b: "g (line 4) -> println (line 9)". */
const char *effects_chain(Arena *a, const FnEff *f, EffBit b);
/* The local (body-only) bit a construct brings, or -1; sets *what to a
 * name for messages ("println", "std.math.exp", "a buffer"). */
int effects_construct(Node *n, const char **what);

/* ------------------------------------------------------------ plans */

typedef struct {
    int vector;           /* K, 0 when not asked */
    int unroll;           /* U, 0 when not asked */
    bool fuse, staged;
} PlanInfo;

/* The plan written for the function named id (all of its items), or
 * zeroes. */
PlanInfo par_plan_for(const Node *program, const char *id);

/* Can region b run in the same pass as region a, lane by lane (a's body
 * then b's, for each index)? Same extent, and the two bodies together obey
 * the race rule. */
bool par_fusable(Arena *a, Node *ra, Node *rb);

/* `cairn check --dump=accesses`: every region's accesses, normalized. */
void par_dump_accesses(FILE *out, const Check *c);

/* ------------------------------------------------------------ analysis */

/* What the analysis pass (analyze.c) decided for one region statement or
 * device collector, for the emitter to read. */
typedef struct {
    int fused;            /* the first region of a fused run: the run's length (>= 2); else 0 */
    Vec guards;           /* N_INDEX x[lane]: one guard before the lanes checks each one's view */
    Vec group_guards;     /* the same for the fused run this region starts */
    bool in_run;          /* one of a fused run's regions (the first too) */
    Vec preloads;         /* a device region alone: N_INDEX x[lane], one a slot (index.preload) */
    Vec posts;            /* ... and N_ASSIGN out[lane] = e, one a slot (assign.post) */
    int wide;             /* ... lanes a device thread runs as one group of consecutive indices,
                             their preloads and posts moved in accesses of up to 16 bytes; 0: none */
} RegionPlan;

struct Analysis {
    PtrMap plans;         /* Node* (N_PARALLEL, N_COLLECT) -> RegionPlan* */
};

Analysis *analyze_program(Arena *a, const Check *c);
/* The plan recorded for n; a region the analysis never saw is our bug. */
const RegionPlan *analysis_of(const Analysis *an, const Node *n);

#endif
