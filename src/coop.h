/*
 * coop.h: what check_coop.c (the rules of one block's threads) shares with
 * coop_phase.c (the phase rule over the accesses a block's run records).
 * Internal to those two files.
 */
#ifndef CAIRN_COOP_H
#define CAIRN_COOP_H

#include "check.h"
#include "sym.h"

/* One body (a region's, or its finish) and what the rules need of it. */
typedef struct {
    Ctx *x;
    Arena *a;             /* scratch, given back after the region */
    Node *region, *body;
    const Vec *tsyms;     /* Sym* of the thread names, fastest first */
    int64_t ext[3];       /* their extents */
    int nt;
    int64_t T;
    bool failed;          /* a rule reported: the next ones would only echo it */
    PtrSet uniform;       /* conditions, loops and shared accesses whose value (index) is the same in
                             every thread of the block, as the uniformity pass found */
    PtrSet written;       /* Sym*: the outside arrays the body writes or updates atomically */
    PtrMap ends;          /* Node* (an assignment) -> where its write happens (end_pos) */
    Arena *keep;          /* what lives through every world's run (ends), where `a` is given back */
} Block;

typedef enum { EV_READ, EV_WRITE, EV_ATOMIC } EvKind;

/* An access of a shared array by one thread. */
typedef struct {
    const Sym *arr;
    SNum elem;
    bool known;           /* elem is a constant */
    bool sure;            /* the thread surely makes it (no undecided condition, no uncounted loop) */
    bool uniform;         /* its index is the same in every thread (at one point of the body) */
    bool together;        /* the conditions left undecided around it are the same in every thread */
    EvKind kind;
    int phase;
    int64_t thread;
    int iter[4];          /* the unrolled loops' iterations, outermost first */
    int niter;
    int pos;              /* where in the body: the access's, or its statement's end for a write */
    Node *node;
} Ev;

/* "thread t = 255" (or a warp as a whole, past the block's threads), the
 * thread's names, and a report that marks the block failed. */
const char *coop_thread_str(const Block *B, int64_t flat);
const char *coop_who(const Block *B, int64_t flat);
void coop_report(Block *B, Span at, DiagCode code, const char *help, const char *msg);

/* The phase rule and E-COOP-UNWRITTEN for one shared array, over every
 * access the block's runs recorded (Ev*), phases the most any run met. */
void coop_check_array(Block *B, const Sym *arr, const Vec *all, int phases);

#endif /* CAIRN_COOP_H */
