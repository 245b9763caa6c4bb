/*
 * pass.h: the compilation as a list of passes (pass.c).
 *
 * Each pass reads what the ones before it left (the tree and its
 * annotations, the side tables in Check) and says what it needs and what it
 * guarantees; the driver (cli/unit.c, check_program) runs a range of the
 * list in order, each only when the ones before it reported no error. In a
 * build with -DCN_VERIFY (`make asan`) the tree is verified after each pass
 * against what the passes so far guarantee (verify_tree).
 */
#ifndef CAIRN_PASS_H
#define CAIRN_PASS_H

#include "cairn.h"

/* One compilation as the passes see it. */
typedef struct {
    Arena *arena;
    Sink *sink;
    const Source *src;    /* parse reads it */
    Check *check;         /* the program and what the passes record about it */
    Emit *emit;           /* the emit pass writes through it */
    const char *dump;     /* --dump=WHAT: printed after the pass that makes it (NULL: none) */
    FILE *dump_out;
} Compilation;

typedef enum {
    PASS_PARSE,
    PASS_RESOLVE,
    PASS_EFFECTS,
    PASS_PARALLEL,
    PASS_DEVICE,
    PASS_DEFERRED,
    PASS_ANALYZE,
    PASS_EMIT,
    PASS_N
} PassId;

typedef struct {
    PassId id;
    const char *name;
    const char *needs;
    const char *guarantees;
    void (*run)(Compilation *u);
    const char *dump;                                /* what --dump=WHAT prints after it, or NULL */
    void (*print)(FILE *out, const Compilation *u);  /* ... and how */
} Pass;

/* The passes of a compilation, in the order they run. */
const Pass *pass_list(int *n);
/* Runs passes first..last in order, each only when no error was reported
 * since the first began; true when none was. */
bool passes_run(Compilation *u, PassId first, PassId last);
/* "ast|types|effects": the dumps the passes offer (--dump=WHAT). */
const char *pass_dumps(Arena *a);
bool pass_dump_known(const char *what);

/* dump.c: the stable text forms --dump prints. */
void dump_ast(FILE *out, const Compilation *u);
void dump_types(FILE *out, const Compilation *u);
void dump_effects(FILE *out, const Compilation *u);

/* verify.c: the invariants the passes up to after_pass guarantee; a
 * violation is our bug: die() naming the pass and the node. */
void verify_tree(const Check *c, const char *after_pass);

/* check.c: the checker's passes (check_program runs them all). */
void check_resolve(Check *c);
void check_parallel_rules(Check *c);
void check_device_rules(Check *c);
void check_deferred(Check *c);

#endif
