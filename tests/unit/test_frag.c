/*
 * test_frag.c: the table of fragment kinds (src/frag.h) and the features a
 * checked program needs of its target (target_needs, src/needs.c).
 *
 * What it shows:
 *   - each of the seven names numerics.md gives is found, with its family,
 *     role and feature; near names (Wmma, WmmaAccum, wmmaA, Mma) are not;
 *   - the shapes each family lowers (WMMA's three, mma.sync's one, none for
 *     tcgen05) and the element types each role holds (f16/bf16 operands,
 *     f32 accumulators), and frag_type refusing everything else;
 *   - the fragment type prints as it is written and compares by kind,
 *     element and shape;
 *   - a fragment type needs its family's feature, and bf16 too for bf16;
 *   - target_needs on a checked program: bf16 in a device lane is needed at
 *     its conversion; bf16 on the host is not; a fragment type placed on a
 *     host function's parameter needs its family's feature there (the tree,
 *     not the text: a function named WmmaTile needs nothing).
 *
 * Prints FAIL lines and a last line `N passed, N failed, N skipped`.
 */
#include "check.h"
#include "frag.h"

#include <string.h>

#include "expect.h"

#define check(ok, what) EXPECT(ok, "%s", what)

static void test_table(void)
{
    static const struct {
        const char *name;
        FragFamily fam;
        FragRole role;
        TargetFeature feature;
    } want[] = {
        {"WmmaA", FAM_WMMA, ROLE_A, TF_WMMA},          {"WmmaB", FAM_WMMA, ROLE_B, TF_WMMA},
        {"WmmaAcc", FAM_WMMA, ROLE_ACC, TF_WMMA},      {"MmaA", FAM_MMA_SYNC, ROLE_A, TF_MMA_SYNC},
        {"MmaB", FAM_MMA_SYNC, ROLE_B, TF_MMA_SYNC},   {"MmaAcc", FAM_MMA_SYNC, ROLE_ACC, TF_MMA_SYNC},
        {"TmemAcc", FAM_TCGEN05, ROLE_ACC, TF_TCGEN05},
    };
    check(FRAG_N == 7, "seven fragment kinds");
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        int f = frag_lookup(want[i].name);
        char what[128];
        snprintf(what, sizeof what, "%s: found, with its family, role and feature", want[i].name);
        check(f >= 0 && frag_family((FragKind)f) == want[i].fam && frag_role((FragKind)f) == want[i].role &&
                  frag_feature((FragKind)f) == want[i].feature && strcmp(frag_name((FragKind)f), want[i].name) == 0,
              what);
    }
    const char *near[] = {"Wmma", "WmmaAccum", "wmmaA", "Mma", "MmaC", "Tmem", ""};
    bool none = frag_lookup(NULL) < 0;
    for (size_t i = 0; i < sizeof near / sizeof *near; i++)
        none = none && frag_lookup(near[i]) < 0;
    check(none, "near names are not fragments");
    check(strcmp(target_feature_name(frag_feature(FRAG_MMA_ACC)), "mma_sync") == 0 &&
              strcmp(frag_family_name(FAM_MMA_SYNC), "PTX mma.sync") == 0,
          "feature and family names");
}

static void test_shapes_and_elements(void)
{
    const FragShape *s;
    check(frag_shapes(FAM_WMMA, &s) == 3 && s[0].m == 16 && s[1].m == 32 && s[1].n == 8 && s[2].m == 8 && s[2].n == 32,
          "WMMA lowers 16x16x16, 32x8x16 and 8x32x16");
    check(frag_shapes(FAM_MMA_SYNC, &s) == 1 && s[0].m == 16 && s[0].n == 8 && s[0].k == 16,
          "mma.sync lowers 16x8x16");
    check(frag_shapes(FAM_TCGEN05, &s) == 0 && !frag_shape_allowed(FRAG_TMEM_ACC, 128, 256, 16),
          "no TmemAcc shape is lowered");
    check(frag_shape_allowed(FRAG_WMMA_B, 8, 32, 16) && !frag_shape_allowed(FRAG_WMMA_B, 16, 8, 16) &&
              frag_shape_allowed(FRAG_MMA_A, 16, 8, 16) && !frag_shape_allowed(FRAG_MMA_A, 16, 16, 16),
          "shapes are the family's");
    check(frag_elem_allowed(FRAG_WMMA_A, TY_F16) && frag_elem_allowed(FRAG_MMA_B, TY_BF16) &&
              !frag_elem_allowed(FRAG_WMMA_A, TY_F32) && !frag_elem_allowed(FRAG_MMA_A, TY_F8E4M3),
          "operands hold f16 or bf16");
    check(frag_elem_allowed(FRAG_WMMA_ACC, TY_F32) && !frag_elem_allowed(FRAG_MMA_ACC, TY_F16) &&
              !frag_elem_allowed(FRAG_WMMA_ACC, TY_F64),
          "accumulators hold f32");
}

static void test_type(Arena *a)
{
    Type *x = frag_type(a, FRAG_WMMA_A, type_prim(TY_F16), 16, 16, 16);
    Type *y = frag_type(a, FRAG_WMMA_A, type_prim(TY_F16), 16, 16, 16);
    Type *z = frag_type(a, FRAG_WMMA_A, type_prim(TY_BF16), 16, 16, 16);
    Type *w = frag_type(a, FRAG_WMMA_B, type_prim(TY_F16), 16, 16, 16);
    Type *acc = frag_type(a, FRAG_MMA_ACC, type_prim(TY_F32), 16, 8, 16);
    check(x && x->kind == TY_FRAGMENT && x->frag == FRAG_WMMA_A && x->elem == type_prim(TY_F16) && x->m == 16,
          "WmmaA[f16, 16, 16, 16] is a structured type");
    check(x && strcmp(type_str(a, x), "WmmaA[f16, 16, 16, 16]") == 0 && acc &&
              strcmp(type_str(a, acc), "MmaAcc[f32, 16, 8, 16]") == 0,
          "a fragment type prints as written");
    check(type_equal(x, y) && !type_equal(x, z) && !type_equal(x, w), "fragment types compare by kind, element, shape");
    check(!frag_type(a, FRAG_WMMA_ACC, type_prim(TY_F16), 16, 16, 16) &&
              !frag_type(a, FRAG_MMA_A, type_prim(TY_F16), 16, 16, 16) &&
              !frag_type(a, FRAG_TMEM_ACC, type_prim(TY_F32), 128, 256, 16) && !frag_type(a, FRAG_WMMA_A, NULL, 16, 16, 16),
          "frag_type refuses what the table does not allow");
    check(frag_needs(x) == 1u << TF_WMMA, "a WMMA f16 fragment needs wmma");
    check(frag_needs(z) == (1u << TF_WMMA | 1u << TF_BF16), "a bf16 fragment needs bf16 too");
    check(frag_needs(acc) == 1u << TF_MMA_SYNC, "an mma.sync accumulator needs mma_sync");
    check(frag_needs(type_prim(TY_BF16)) == 0 && frag_needs(NULL) == 0, "a non-fragment needs nothing of the table");
}

/* Parses and checks `text`; the Check, or NULL when it was refused. */
static Check *checked(Arena *a, const char *text)
{
    Source *src = arena_alloc(a, sizeof *src);
    src->name = "t.cairn";
    src->text = text;
    src->len = strlen(text);
    Sink *sink = arena_alloc(a, sizeof *sink);
    sink_init(sink, stdout, false);
    Check *c = arena_alloc(a, sizeof *c);
    c->arena = a;
    c->sink = sink;
    c->program = parse_source(a, sink, src);
    if (sink->errors || !check_program(c) || sink->errors)
        return NULL;
    return c;
}

static Node *fn_named(Check *c, const char *id)
{
    for (int i = 0; i < c->fns.n; i++) {
        Node *fn = c->fns.v[i];
        if (fn->fn.id && strcmp(fn->fn.id, id) == 0)
            return fn;
    }
    return NULL;
}

static void test_needs(Arena *a)
{
    Span at[TF_NFEATURES];
    Check *c = checked(a, "fn round(n:usize, x:rw<f32>[n]@device) {\n"
                          "    parallel i in n { x[i] = f32(bf16(x[i])); }\n"
                          "}\n"
                          "fn main() -> i32 { return 0; }\n");
    check(c && target_needs(c, at) == 1u << TF_BF16 && at[TF_BF16].line == 2,
          "bf16 in a device lane: needed, at its line");
    c = checked(a, "fn WmmaTile(x:f32) -> f32 { let MmaA:bf16 = bf16(x); return f32(MmaA); }\n"
                   "fn main() -> i32 { println(WmmaTile(1.5)); return 0; }\n");
    check(c && target_needs(c, at) == 0, "bf16 on the host and names like WmmaTile, MmaA: nothing needed");
    Node *fn = c ? fn_named(c, "WmmaTile") : NULL;
    Node *param = fn && fn->fn.params.n ? fn->fn.params.v[0] : NULL;
    if (param) {   /* a fragment type in the tree, as issue 18 will give one */
        param->ty = frag_type(a, FRAG_MMA_B, type_prim(TY_BF16), 16, 8, 16);
        unsigned bits = target_needs(c, at);
        check(bits == (1u << TF_MMA_SYNC | 1u << TF_BF16) && at[TF_MMA_SYNC].line == 1 && at[TF_MMA_SYNC].col == 13,
              "a fragment type in the tree needs its family's feature (and bf16), at its place");
    } else {
        check(false, "the program with WmmaTile checks");
    }
}

int main(void)
{
    Arena *a = arena_new();
    test_table();
    test_shapes_and_elements();
    test_type(a);
    test_needs(a);
    arena_free(a);
    printf("%d passed, %d failed, 0 skipped\n", passed, failed);
    return failed != 0;
}
