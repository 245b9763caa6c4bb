/*
 * frag.h: the tensor-core fragment kinds (numerics.md, "Tensor-core
 * fragments"), in one table that the checker (the type WmmaA[..] and the
 * constructor WmmaAcc[..](0.0)) and the target's needs (needs.c) both read,
 * so a kind's name, family, role and feature are written once.
 *
 *   kind       family         role          feature      shapes M, N, K
 *   WmmaA/B    nvcuda::wmma   A, B          wmma         16,16,16  32,8,16  8,32,16
 *   WmmaAcc    nvcuda::wmma   accumulator   wmma         (the same)
 *   MmaA/B     mma.sync       A, B          mma_sync     16,8,16
 *   MmaAcc     mma.sync       accumulator   mma_sync     16,8,16
 *   TmemAcc    tcgen05        accumulator   tcgen05      none lowered
 *
 * Operands hold f16 or bf16 and accumulators f32; a bf16 fragment needs the
 * bf16 feature too. A fragment type is a Type of kind TY_FRAGMENT: `frag`
 * the kind, `elem` the element type, `m`, `n`, `k` its shape.
 */
#ifndef CAIRN_FRAG_H
#define CAIRN_FRAG_H

#include "target.h"

typedef enum { ROLE_A, ROLE_B, ROLE_ACC } FragRole;

/* Families: id, the name numerics.md gives, the target feature it needs. */
#define FRAG_FAMILIES(X)                                                     \
    X(FAM_WMMA, "nvcuda::wmma", TF_WMMA)                                     \
    X(FAM_MMA_SYNC, "PTX mma.sync", TF_MMA_SYNC)                             \
    X(FAM_TCGEN05, "tcgen05 tensor memory", TF_TCGEN05)

typedef enum {
#define X(id, name, feature) id,
    FRAG_FAMILIES(X)
#undef X
    FAM_N
} FragFamily;

/* Kinds: id, the type's name in source, family, role. */
#define FRAG_KINDS(X)                                                        \
    X(FRAG_WMMA_A, "WmmaA", FAM_WMMA, ROLE_A)                                \
    X(FRAG_WMMA_B, "WmmaB", FAM_WMMA, ROLE_B)                                \
    X(FRAG_WMMA_ACC, "WmmaAcc", FAM_WMMA, ROLE_ACC)                          \
    X(FRAG_MMA_A, "MmaA", FAM_MMA_SYNC, ROLE_A)                              \
    X(FRAG_MMA_B, "MmaB", FAM_MMA_SYNC, ROLE_B)                              \
    X(FRAG_MMA_ACC, "MmaAcc", FAM_MMA_SYNC, ROLE_ACC)                         \
    X(FRAG_TMEM_ACC, "TmemAcc", FAM_TCGEN05, ROLE_ACC)

typedef enum {
#define X(id, name, family, role) id,
    FRAG_KINDS(X)
#undef X
    FRAG_N
} FragKind;

typedef struct {
    int m, n, k;
} FragShape;

int frag_lookup(const char *name);              /* a FragKind, or -1: not a fragment's name */
const char *frag_name(FragKind f);              /* "WmmaA" */
FragFamily frag_family(FragKind f);
FragRole frag_role(FragKind f);
const char *frag_family_name(FragFamily fam);   /* "nvcuda::wmma" */
TargetFeature frag_feature(FragKind f);         /* the family's feature */
/* The shapes the family lowers (numerics.md's table); 0 for TmemAcc,
 * which nothing lowers. */
int frag_shapes(FragFamily fam, const FragShape **shapes);
bool frag_elem_allowed(FragKind f, TypeKind elem);   /* f16, bf16 for A and B; f32 for accumulators */
bool frag_shape_allowed(FragKind f, int m, int n, int k);
/* WmmaA[f16, 16, 16, 16] as a Type; NULL when the table does not allow the
 * element type or the shape. */
Type *frag_type(Arena *a, FragKind f, Type *elem, int m, int n, int k);
/* The part of a tile a fragment of type t covers: A is M x K, B is K x N,
 * an accumulator M x N (rows, then columns). */
void frag_tile(const Type *t, int *rows, int *cols);
/* Values an mma.sync accumulator's lane holds (4 for 16 x 8 in f32), and
 * which element (row, col) value v of lane l is: the PTX ISA's share,
 * (l / 4 + 8 (v / 2), 2 (l % 4) + v % 2). */
enum { FRAG_MMA_ACC_VALUES = 4 };
void frag_mma_acc_elem(int lane, int v, int *row, int *col);
/* A fragment operation a warp runs together (numerics.md): a fill, a load,
 * a store, a multiply; mma_get and mma_set reach the lane's own element
 * and are not. */
bool frag_is_warp_op(const Node *e);
/* The elements (offsets through L) a load or store of fragment (fi, fj) of
 * type f touches, into out (512 at most); 0 outside L's tile. *whole: the
 * access is the warp's as a whole (every family's operands, a WMMA
 * accumulator: no lane is named), else lane `lane`'s own share (an
 * mma.sync accumulator). What check_coop.c's phase rule records. */
struct Layout;
int frag_elems(const Type *f, const struct Layout *L, int64_t fi, int64_t fj, int lane, int64_t *out, bool *whole);
/* The target features a type needs for the fragments in it: the family's,
 * and bf16 for a bf16 fragment (a bit per TargetFeature). */
unsigned frag_needs(const Type *t);

#endif
