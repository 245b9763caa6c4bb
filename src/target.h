/*
 * target.h: the device target (devices.md, "The device target").
 *
 * A target is spelled as nvcc spells it: sm_ and a compute capability, with
 * an optional `a` (from sm_90: every feature of exactly that capability) or
 * `f` (from sm_100: the family's shared features). It is resolved once, from
 * --device-target, else the manifest's [build] device_target, else the one
 * GPU nvidia-smi reports; nothing defaults to -arch=native. The installed
 * nvcc must compile it (E-TARGET-TOOLKIT). Its features are what the
 * installed ptxas assembles, one probe instruction per feature, with a table
 * of the PTX ISA's target requirements as the fallback where there is no
 * ptxas. Its limits are the CUDA Programming Guide's per compute capability.
 */
#ifndef CAIRN_TARGET_H
#define CAIRN_TARGET_H

#include "cairn.h"

/* The features, in the order the receipt lists them. */
#define TARGET_FEATURES(X)                                                   \
    X(TF_BF16, "bf16")             /* cvt.rn.bf16.f32: sm_80 */              \
    X(TF_WMMA, "wmma")             /* wmma.mma m16n16k16 f16: sm_70 */       \
    X(TF_MMA_SYNC, "mma_sync")     /* mma.sync m16n8k16 f16: sm_80 */        \
    X(TF_CP_ASYNC, "cp.async")     /* cp.async.cg 16 bytes: sm_80 */         \
    X(TF_CLUSTERS, "clusters")     /* barrier.cluster, %cluster_ctarank: sm_90 */ \
    X(TF_TMA, "tma")               /* cp.async.bulk.tensor: sm_90 */         \
    X(TF_WGMMA, "wgmma")           /* wgmma.mma_async: sm_90a only */        \
    X(TF_TCGEN05, "tcgen05")       /* tcgen05.alloc: sm_100a/f .. sm_110a/f */ \
    X(TF_MMA_F8F6F4, "mma_f8f6f4") /* mma.sync .kind::f8f6f4: a/f from sm_100 */

typedef enum {
#define X(id, s) id,
    TARGET_FEATURES(X)
#undef X
    TF_NFEATURES
} TargetFeature;
const char *target_feature_name(TargetFeature f);

typedef enum { TGT_BY_FLAG, TGT_BY_MANIFEST, TGT_BY_NVIDIA_SMI } TargetSource;

/* The CUDA Programming Guide's limits for one compute capability. */
typedef struct {
    int cc;                      /* 90 for 9.0 */
    int regs_per_thread;
    int regs_per_sm;
    int threads_per_block;
    int smem_per_block;          /* static shared memory, bytes */
    int smem_per_block_optin;    /* dynamic, opted into, bytes */
    int smem_per_sm;
    int warps_per_sm;
    int blocks_per_sm;
} TargetLimits;

typedef struct Target {
    char name[16];               /* "sm_90a" */
    int cc;                      /* 90: major 9, minor 0 */
    char suffix;                 /* 0, 'a' or 'f' */
    TargetSource by;
    const char *where;           /* the manifest's path; nvidia-smi's answer */
    unsigned provided;           /* bit per TargetFeature */
    unsigned needed;
    bool probed;                 /* provided comes from ptxas; else from the table */
    const char *ptxas;           /* "13.0.88", or NULL: none on PATH */
    const char *nvcc;            /* "13.0.88", or NULL: none on PATH (not checked) */
    const TargetLimits *limits;  /* NULL: no row for this capability */
} Target;

/* Why a target was refused: E_TARGET or E_TARGET_TOOLKIT, with a help. */
typedef struct {
    DiagCode code;
    char msg[512];
    char help[512];
} TargetError;

/* The spelling alone: sm_XY[a|f]. */
bool target_parse(const char *spelling, Target *t, TargetError *err);

/* Resolves the target: flag, else the manifest's value, else nvidia-smi.
 * Returns false with err filled when none can be had (E-TARGET). */
bool target_resolve(Arena *a, const char *flag, const char *manifest_value, const char *manifest_path,
                    Target *t, TargetError *err);

/* Asks nvcc whether it compiles the target (E-TARGET-TOOLKIT when not), then
 * fills the features (ptxas probes, cached under build/targets/) and the
 * limits. A missing nvcc is not a refusal: t->nvcc stays NULL. */
bool target_validate(Arena *a, Target *t, TargetError *err);

/* The table's answer (the PTX ISA's target requirements). */
unsigned target_table_features(const Target *t);
/* One probe with the installed ptxas: 1 assembles, 0 refused, -1 no ptxas. */
int target_probe(Arena *a, const Target *t, TargetFeature f);
const TargetLimits *target_limits(int cc);

/* The features a checked program needs of its target, from its typed tree
 * (needs.c): bf16 where device code computes a bf16 value, and each
 * fragment type's family (frag.h). at[f] is where need f first arises. */
unsigned target_needs(const Check *c, Span at[TF_NFEATURES]);

/* The receipt's device_target object (no trailing newline). */
void target_write_json(FILE *f, const Target *t);

#endif
