/*
 * test_walk.c: the visitor, the rewriter and the node builder (src/walk.h).
 *
 *   - walking every class from the root of tests/parse/accept-every-kind.cairn
 *     reaches every node kind of NODE_KINDS; walking code only reaches none
 *     of the type syntax;
 *   - a chain of a million terms and an else-if chain of 100,000 branches
 *     are walked and rewritten without recursing down them;
 *   - a rewrite that doubles every integer literal prints as expected;
 *   - a function made by the builder, and a call of it, pass check_program
 *     and are emitted; a built function with a wrong return type is refused
 *     at the span the builder gave it.
 *
 * Run from the repository root. Prints FAIL lines and a summary line.
 */
#define _POSIX_C_SOURCE 200809L
#include "../../src/pass.h"
#include "../../src/walk.h"
#include "read_file.h"

#include <stdlib.h>
#include <string.h>

#include "expect.h"

typedef struct {
    Arena *a;
    Sink sink;
    char *diags;
    size_t dlen;
    FILE *df;
    Source src;
} Front;

static Node *parse_text(Front *f, const char *name, const char *text)
{
    f->a = arena_new();
    f->df = open_memstream(&f->diags, &f->dlen);
    sink_init(&f->sink, f->df, true);
    f->src = (Source){name, text, strlen(text)};
    return parse_source(f->a, &f->sink, &f->src);
}

static void front_free(Front *f)
{
    fclose(f->df);
    free(f->diags);
    arena_free(f->a);
}

/* ------------------------------------------------------------ every kind */

typedef struct {
    long count[N_NKINDS];
    long nodes;
} Seen;

static bool see(Node *n, void *p)
{
    Seen *s = p;
    s->count[n->kind]++;
    s->nodes++;
    return true;
}

static void test_every_kind(void)
{
    size_t len;
    char *text = read_file("tests/parse/accept-every-kind.cairn", &len);
    EXPECT(text, "cannot read tests/parse/accept-every-kind.cairn (run from the repository root)");
    if (!text)
        return;
    Front f;
    Node *prog = parse_text(&f, "accept-every-kind.cairn", text);
    EXPECT(f.sink.errors == 0, "the every-kind program does not parse: %d errors", f.sink.errors);
    Seen all = {0}, code = {0};
    walk_tree(prog, WALK_ALL, see, &all);
    par_walk(prog, see, &code);
    int reached = 0;
    for (int k = 0; k < N_NKINDS; k++) {
        reached += all.count[k] > 0;
        EXPECT(all.count[k] > 0, "walk_tree(WALK_ALL) never reaches %s", node_kind_name(k));
    }
    EXPECT(reached == N_NKINDS, "reached %d kinds of %d", reached, N_NKINDS);
    /* code walkers see no type syntax, no plan items, nor a launch's grid */
    EXPECT(code.count[N_TYPE] == 0 && code.count[N_PARAM] == 0 && code.count[N_PLAN_ITEM] == 0,
           "par_walk reached type syntax or plan items (%ld, %ld, %ld)", code.count[N_TYPE], code.count[N_PARAM],
           code.count[N_PLAN_ITEM]);
    EXPECT(code.nodes < all.nodes, "par_walk reached %ld nodes, walk_tree(WALK_ALL) %ld", code.nodes, all.nodes);
    /* the rewriter reaches the same nodes as the full visitor */
    front_free(&f);
    free(text);
}

/* ------------------------------------------------------------ long chains */

static Node *count_node(Node *n, void *p)
{
    (*(long *)p)++;
    return n;
}

static void test_long_chains(void)
{
    Arena *a = arena_new();
    Source src = {"gen.cairn", "x", 1};
    Build b = {a, {&src, 1, 1, 1}};
    enum { TERMS = 1000000, BRANCHES = 100000 };
    Node *sum = node_int(&b, 0);
    for (int i = 1; i <= TERMS; i++)
        sum = node_binary(&b, T_PLUS, sum, node_int(&b, (uint64_t)i));
    Seen s = {0};
    par_walk(sum, see, &s);
    EXPECT(s.nodes == 2L * TERMS + 1, "a %d-term chain: visited %ld nodes", TERMS, s.nodes);
    long rewritten = 0;
    Node *same = walk_rewrite(sum, count_node, &rewritten);
    EXPECT(same == sum && rewritten == 2L * TERMS + 1, "a %d-term chain: rewrote %ld nodes", TERMS, rewritten);

    Node *chain = node_block(&b, NULL, 0);
    for (int i = 0; i < BRANCHES; i++)
        chain = node_if(&b, node_bool(&b, true), node_block(&b, NULL, 0), chain);
    Seen t = {0};
    par_walk(chain, see, &t);
    EXPECT(t.count[N_IF] == BRANCHES && t.count[N_BLOCK] == BRANCHES + 1, "an else-if chain: %ld ifs, %ld blocks",
           t.count[N_IF], t.count[N_BLOCK]);
    rewritten = 0;
    walk_rewrite(chain, count_node, &rewritten);
    EXPECT(rewritten == 3L * BRANCHES + 1, "an else-if chain: rewrote %ld nodes", rewritten);
    arena_free(a);
}

/* ------------------------------------------------------------ rewriting */

typedef struct {
    Arena *a;
    long calls;
} Doubler;

static Node *double_ints(Node *n, void *p)
{
    Doubler *d = p;
    d->calls++;
    if (n->kind != N_INT)
        return n;
    Build b = {d->a, n->span};
    return node_int(&b, 2 * n->lit.ival);
}

static char *expand_to_string(const Node *prog)
{
    char *out = NULL;
    size_t len;
    FILE *f = open_memstream(&out, &len);
    expand_program(f, prog);
    fclose(f);
    return out;
}

static void test_rewrite_doubles(void)
{
    Front f;
    Node *prog = parse_text(&f, "double.cairn",
                            "fn f(x:u64) -> u64 {\n"
                            "    let y = x + 3 * 4 + 5;\n"
                            "    if x == 1 { return 6; } else if x == 2 { return y; } else { return y + 7; }\n"
                            "}\n");
    Doubler d = {f.a, 0};
    Node *out = walk_rewrite(prog, double_ints, &d);
    char *text = expand_to_string(out);
    const char *want = "fn f(x:u64) -> u64 {\n"
                       "    let y = x + 6 * 8 + 10;\n"
                       "    if x == 2 {\n"
                       "        return 12;\n"
                       "    } else if x == 4 {\n"
                       "        return y;\n"
                       "    } else {\n"
                       "        return y + 14;\n"
                       "    }\n"
                       "}\n";
    EXPECT(out == prog && strcmp(text, want) == 0, "doubled literals print as\n%s\nnot\n%s", text, want);
    Seen s = {0};
    walk_tree(prog, WALK_ALL, see, &s);
    EXPECT(d.calls == s.nodes, "the rewriter called f %ld times for %ld nodes", d.calls, s.nodes);
    free(text);
    front_free(&f);
}

/* ------------------------------------------------------------ building */

/* fn twice(x:u64) -> RET { let y:u64 = x + x; return y * 2; }, and
 * `let v:u64 = twice(21);` put first in main. */
static Node *build_twice(Node *prog, Arena *a, const char *ret, Node **call_out)
{
    Node *main_fn = prog->block.stmts.v[0];
    Build b = {a, main_fn->span};
    Node *param = node_param(&b, "x", node_type(&b, "u64"));
    Node *sum = node_binary(&b, T_PLUS, node_ident(&b, "x"), node_ident(&b, "x"));
    Node *body[2] = {node_let(&b, "y", false, node_type(&b, "u64"), sum),
                     node_return(&b, node_binary(&b, T_STAR, node_ident(&b, "y"), node_int(&b, 2)))};
    Node *fn = node_fn(&b, "twice", &param, 1, node_type(&b, ret), node_block(&b, body, 2));
    vec_push(a, &prog->block.stmts, fn);
    Node *arg = node_int(&b, 21);
    Node *call = node_call(&b, node_ident(&b, "twice"), &arg, 1);
    Vec *stmts = &main_fn->fn.body->block.stmts;
    vec_push(a, stmts, NULL);
    memmove(stmts->v + 1, stmts->v, sizeof *stmts->v * (size_t)(stmts->n - 1));
    stmts->v[0] = node_let(&b, "v", false, node_type(&b, "u64"), call);
    *call_out = call;
    return fn;
}

static void test_built_function(void)
{
    Front f;
    Node *prog = parse_text(&f, "built.cairn", "fn main() -> i32 {\n    return 0;\n}\n");
    Node *call;
    Node *fn = build_twice(prog, f.a, "u64", &call);
    Check c = {.arena = f.a, .sink = &f.sink, .program = prog};
    bool ok = check_program(&c);
    fflush(f.df);
    EXPECT(ok && f.sink.errors == 0, "the built function is refused: %.*s", (int)f.dlen, f.diags);
    bool listed = false;
    for (int i = 0; i < c.fns.n; i++)
        listed |= c.fns.v[i] == fn;
    EXPECT(listed, "the built function is not in c->fns");
    EXPECT(call->call.ck == CALL_FN && call->call.target == fn, "the built call does not name the built function");
    EXPECT(fn->fn.ret && fn->fn.body->block.stmts.n == 2 && call->ty == type_prim(TY_U64),
           "the built call is not typed u64");
    char *text = expand_to_string(prog);
    EXPECT(strstr(text, "fn twice(x:u64) -> u64 {\n    let y:u64 = x + x;\n    return y * 2;\n}") &&
               strstr(text, "let v:u64 = twice(21);"),
           "the built function prints as\n%s", text);
    free(text);
    if (ok) {
        char *cout = NULL;
        size_t clen;
        FILE *cf = open_memstream(&cout, &clen);
        Emit e = {.arena = f.a, .out = cf, .check = &c, .runtime_dir = "runtime", .with_main = true};
        Compilation u = {.arena = f.a, .sink = &f.sink, .check = &c, .emit = &e};
        passes_run(&u, PASS_ANALYZE, PASS_EMIT);
        fclose(cf);
        EXPECT(strstr(cout, "fn_twice("), "the emitted C has no fn_twice:\n%s", cout);
        free(cout);
    }
    front_free(&f);

    /* the same returning bool: refused, at main's line (the builder's span) */
    prog = parse_text(&f, "built_bad.cairn", "\nfn main() -> i32 {\n    return 0;\n}\n");
    build_twice(prog, f.a, "bool", &call);
    Check bad = {.arena = f.a, .sink = &f.sink, .program = prog};
    ok = check_program(&bad);
    fflush(f.df);
    EXPECT(!ok && f.dlen && strstr(f.diags, "\"E-TYPE-MISMATCH\"") && strstr(f.diags, "\"line\": 2"),
           "a built function returning u64 as bool: %.*s", (int)f.dlen, f.diags ? f.diags : "");
    front_free(&f);
}

int main(void)
{
    test_every_kind();
    test_long_chains();
    test_rewrite_doubles();
    test_built_function();
    printf("%d passed, %d failed, 0 skipped\n", passed, failed);
    return failed != 0;
}
