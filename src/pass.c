/*
 * pass.c: the list of passes a compilation runs, in order, and the loop
 * that runs them. This table is the pipeline; docs/internals.md draws it.
 *
 *   parse -> resolve -> effects -> parallel -> device -> deferred -> analyze -> emit
 *
 * Requires: a Compilation with its arena, sink and source (and an Emit for
 * the emit pass).
 * Guarantees: passes run in the table's order, each only when none before
 * it (in this run) reported an error; after each, a CN_VERIFY build checks
 * the tree, and a requested dump is printed.
 */
#include "pass.h"
#include "par.h"

#include <string.h>

static void run_parse(Compilation *u)
{
    u->check->program = parse_source(u->arena, u->sink, u->src);   /* tokens streamed, never all held */
}

static void run_resolve(Compilation *u)
{
    check_resolve(u->check);
}

static void run_effects(Compilation *u)
{
    u->check->effects = effects_compute(u->arena, u->check);
}

static void run_parallel(Compilation *u)
{
    check_parallel_rules(u->check);
}

static void dump_accesses(FILE *out, const Compilation *u)
{
    par_dump_accesses(out, u->check);   /* walks the lanes again, reporting nothing */
}

static void run_device(Compilation *u)
{
    check_device_rules(u->check);
}

static void run_deferred(Compilation *u)
{
    check_deferred(u->check);
}

static void run_analyze(Compilation *u)
{
    u->check->analysis = analyze_program(u->arena, u->check);
}

static void run_emit(Compilation *u)
{
    if (!u->emit)
        die("the emit pass ran with nowhere to write");
    emit_program(u->emit);
}

static const Pass passes[PASS_N] = {
    {PASS_PARSE, "parse", "the source text",
     "a tree whatever the input (a node not read is N_NAME \"<error>\"), each node with a span in the source; "
     "E-PARSE for anything not read",
     run_parse, "ast", dump_ast},
    {PASS_RESOLVE, "resolve", "a tree without parse errors",
     "every name has its symbol, every expression a concrete type, every call its kind and target; c->fns "
     "lists what to emit, generic instances included",
     run_resolve, "types", dump_types},
    {PASS_EFFECTS, "effects", "a typed tree",
     "every function's effect row, to a fixpoint over the call graph, in c->effects (explain and the rules "
     "read it; nothing recomputes it)",
     run_effects, "effects", dump_effects},
    {PASS_PARALLEL, "parallel", "a typed tree and the effect rows",
     "regions and collectors obey the lane rules: no race, no forbidden write, call or nesting; each access "
     "normalized to its root view and offset on the symbolic core (sym.c)",
     run_parallel, "accesses", dump_accesses},
    {PASS_DEVICE, "device", "the lane rules applied",
     "device work is placed: regions and collectors marked host or device, tickets waited, placements legal",
     run_device, NULL, NULL},
    {PASS_DEFERRED, "deferred", "every rule above applied",
     "constructs whose rules come later are refused (E-UNSUPPORTED), and only when nothing else was", run_deferred,
     NULL, NULL},
    {PASS_ANALYZE, "analyze", "a program every checker accepted",
     "fusion runs and hoisted guards decided (c->analysis), covered x[lane] marked", run_analyze, NULL, NULL},
    {PASS_EMIT, "emit", "the analysis", "C that includes the runtime, one statement a CAIRN line", run_emit, NULL,
     NULL},
};

const Pass *pass_list(int *n)
{
    *n = PASS_N;
    return passes;
}

static void after_pass(Compilation *u, const Pass *p)
{
#ifdef CN_VERIFY
    if (p->id < PASS_EMIT)
        verify_tree(u->check, p->name);
#endif
    if (u->dump && p->dump && !strcmp(u->dump, p->dump))
        p->print(u->dump_out ? u->dump_out : stdout, u);
}

bool passes_run(Compilation *u, PassId first, PassId last)
{
    int before = u->sink->errors;
    for (int i = (int)first; i <= (int)last && u->sink->errors == before; i++) {
        if ((int)passes[i].id != i)
            die("the pass table is out of order at %s", passes[i].name);
        passes[i].run(u);
        if (u->sink->errors == before)
            after_pass(u, &passes[i]);
    }
    return u->sink->errors == before;
}

const char *pass_dumps(Arena *a)
{
    const char *s = "";
    for (int i = 0; i < PASS_N; i++)
        if (passes[i].dump)
            s = arena_printf(a, "%s%s%s", s, *s ? "|" : "", passes[i].dump);
    return s;
}

bool pass_dump_known(const char *what)
{
    for (int i = 0; i < PASS_N; i++)
        if (passes[i].dump && !strcmp(passes[i].dump, what))
            return true;
    return false;
}

/* The checker's passes, resolution to the held-back refusals, from the
 * pass list (pass.c); each runs only when the ones before it reported no
 * error. */
bool check_program(Check *c)
{
    if (!c || !c->program || !c->sink || !c->arena)
        return false;
    Compilation u = {.arena = c->arena, .sink = c->sink, .check = c};
    return passes_run(&u, PASS_RESOLVE, PASS_DEFERRED);
}
